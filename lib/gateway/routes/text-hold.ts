/** What a text request may cost at most (the hold), and a 402 that says what would fit. */
import type { ModelPrice } from "../../../db/schema";
import { formatUsd } from "../../billing/money";
import { affordableMaxTokens, textHoldMicro } from "../../billing/text-cost";
import type { CanonicalRequest } from "../canonical";
import type { ApiError } from "../errors";
import type { ModelRoute } from "../model-route";
import type { InboundProtocol } from "../protocols/types";

/** Prompt bound × input price + every choice's output cap × output price, at the dearest usable entry. */
export function textHold(req: CanonicalRequest, usable: readonly ModelRoute[], promptBound: number): number {
  // Several choices (`n`, `candidateCount`, passthrough only) each take up to the cap.
  const outputCap = outputTokenCap(req);
  const price = usable[0]!.price;
  // An alias's targets have their own prices: the hold covers the dearest, the charge is the server's.
  let hold = textHoldMicro(promptBound, outputCap, price);
  for (const r of usable) if (r.price !== price) hold = Math.max(hold, textHoldMicro(promptBound, outputCap, r.price));
  return hold;
}

export const outputTokenCap = (req: CanonicalRequest) => req.maxOutputTokens! * Math.max(1, req.n ?? 1);

/** A 402 that helps: what the request could cost, what is available, and the cap that would fit. */
export function whatWouldFit(err: ApiError, protocol: InboundProtocol, promptBound: number, maxTokens: number, hold: number, available: number, price: ModelPrice): ApiError {
  const field = protocol.fieldName("max_tokens");
  // Headroom for the cap field the client adds: a passthrough's bound counts every body byte.
  const fits = Math.min(affordableMaxTokens(promptBound + 64, available, price), maxTokens - 1);
  const advice = fits >= 1 ? `Set ${field} to at most ${fits}, or add funds under Billing.` : "Add funds under Billing.";
  return {
    ...err,
    message: `Insufficient balance: this request could cost up to $${formatUsd(hold)} (a prompt of up to ${promptBound} tokens and ${field} ${maxTokens}), and $${formatUsd(available)} is available. ${advice}`,
  };
}
