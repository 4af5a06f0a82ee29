/**
 * A batch's lines: what each one is (its endpoint's text protocol) and what it may cost at most
 * at the batch price (its share of the batch's one hold), computed as the text handler prices a
 * hold (text-hold.ts), with the raw-body token bound so a passthrough line is covered too.
 */
import { batchTextPrice, textHoldMicro } from "../../billing/text-cost";
import { decryptSecret, encryptSecret } from "../../crypto";
import { resolveModel } from "../catalog";
import { parseEmbeddingRequest } from "../media/embedding-request";
import { maxEmbeddingTokens } from "../embeddings/embedding-tokens";
import { chatCompletions, generateContent, messages, responses, type InboundProtocol } from "../protocols";
import type { ParseOptions } from "../protocols/types";
import { promptTokenBound, rawBodyTokenBound } from "../tokens";
import type { Principal } from "../types";
import { outputTokenCap } from "../routes/text-hold";
import { batchesNatively } from "../upstreams/batch-apis";
import { defaultOutputCap } from "../routes/text-plan";

/** The endpoints a batch line may call, and the protocol each is run with. */
export const LINE_PROTOCOLS: Record<string, InboundProtocol> = {
  "/v1/chat/completions": chatCompletions,
  "/v1/responses": responses,
  "/v1/messages": messages,
};

/** Gemini batch mode's lines: generateContent of the batch's model, which lives in the line's url. */
const GEMINI_LINE = /^\/v1beta\/models\/([^/:]+):generateContent$/;
export const geminiLineUrl = (model: string) => `/v1beta/models/${model}:generateContent`;

/** How a line's url is run: its inbound protocol and the options its route would parse with; null when no route runs it. */
export function lineProtocol(url: string): { protocol: InboundProtocol; parseOpts?: ParseOptions } | null {
  const p = LINE_PROTOCOLS[url];
  if (p) return { protocol: p };
  const m = GEMINI_LINE.exec(url);
  return m ? { protocol: generateContent, parseOpts: { pathModel: m[1]!, stream: false } } : null;
}

/** A line's body and result are sealed in the database, as stored responses are (lib/crypto.ts). */
export const sealJson = (v: unknown): string => encryptSecret(JSON.stringify(v));
export const unsealJson = <T>(s: string): T => JSON.parse(decryptSecret(s)) as T;

/** The embeddings endpoint: run through the embeddings pipeline, not the text call. */
export const EMBEDDINGS = "/v1/embeddings";

/** The line's body as it is run: never streamed, never stored (a batch's results are its files). */
export function runnableBody(url: string, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  delete out.stream;
  delete out.stream_options;
  if (url === "/v1/responses") {
    out.store = false;
    delete out.background;
  }
  return out;
}

/** A line as priced: its share of the hold, and the catalog entry whose vendor batch API will serve it (null: the gateway runs it). */
export interface PricedLine {
  share: number;
  nativeRoute: string | null;
}

/**
 * The line's worst case at the batch price, or 0 when the line cannot run (its body does not
 * parse, its model is unknown to the caller): it then fails at run time with that error, and
 * charges nothing. A text line whose model's first entry batches natively (decision 0070) is
 * bound for that entry's vendor batch API.
 */
export async function lineShare(principal: Principal, url: string, body: Record<string, unknown>, bodyBytes: number): Promise<PricedLine> {
  const none = { share: 0, nativeRoute: null };
  if (url === EMBEDDINGS) return { share: await embeddingShare(principal, body), nativeRoute: null };
  const lp = lineProtocol(url);
  if (!lp) return none;
  const parsed = lp.protocol.parseRequest(body, lp.parseOpts);
  if (!parsed.ok) return none;
  const req = parsed.value;
  const resolved = await resolveModel(principal, req.model, ["text"], {});
  if (!resolved.ok || !resolved.value.routes.length) return none;
  const routes = resolved.value.routes;
  defaultOutputCap(req, routes);
  const bound = Math.max(promptTokenBound(req), rawBodyTokenBound(bodyBytes, req));
  let share = 0;
  for (const r of routes) share = Math.max(share, textHoldMicro(bound, outputTokenCap(req), batchTextPrice(r.price)));
  return { share, nativeRoute: batchesNatively(routes[0]!.upstream) ? routes[0]!.rowId : null };
}

/** An embeddings line: every input byte a token (the single request's hold), at the batch price. */
async function embeddingShare(principal: Principal, body: Record<string, unknown>): Promise<number> {
  const parsed = parseEmbeddingRequest(body);
  if (!parsed.ok) return 0;
  const resolved = await resolveModel(principal, parsed.value.model, ["embedding"], {});
  if (!resolved.ok || !resolved.value.routes.length) return 0;
  const tokens = maxEmbeddingTokens(parsed.value.input);
  return Math.max(...resolved.value.routes.map((r) => textHoldMicro(tokens, 0, batchTextPrice(r.price))));
}
