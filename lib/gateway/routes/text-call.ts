/** The one text call every text entry makes (decision 0024's billing port, decision 0006's order). */
import type { DB } from "../../../db/client";
import { captureContent, contentAttribute } from "../../tracing";
import { textBilling } from "../billing";
import { resolveModel } from "../catalog";
import type { GatewayResponse } from "../http";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { tokenAdmission } from "../token-limits";
import type { RouteContext } from "../types";
import { handleText } from "./text-handler";
import type { TextBilling } from "./text-types";

export interface TextCallInput {
  protocol: InboundProtocol;
  body: unknown;
  bodyBytes: number;
  parseOpts?: ParseOptions;
  /** The client's body as text, read only when traces capture content. */
  requestBody?: () => string;
  /** Defaults to the client's disconnect signal; a background run passes its own. */
  signal?: AbortSignal;
  /** A caller's own step around the database billing (stored Responses count replayed items). */
  wrapBilling?: (billing: TextBilling) => TextBilling;
}

/**
 * The one text call every entry makes (the three generation routes, Google's model methods,
 * POST /v1/responses and background responses): the key's routes, the billing, the
 * client's vendor headers, and a stream that ends before its settlement starts (decision 0006).
 */
export function textCall(ctx: RouteContext, db: DB, path: string, call: TextCallInput): Promise<GatewayResponse> {
  const billing = textBilling(db, ctx, path); // traced at the port (trace-billing.ts)
  const span = ctx.observe.span;
  if (span && call.requestBody && captureContent()) span.setAttribute("gateway.request.body", contentAttribute(call.requestBody()));
  return handleText(
    {
      protocol: call.protocol,
      body: call.body,
      bodyBytes: call.bodyBytes,
      parseOpts: call.parseOpts,
      signal: call.signal ?? ctx.req.signal,
      startedAt: ctx.startedAt,
      headers: ctx.req.headers,
      settleAfterReply: ctx.settleAfterReply && !ctx.observe.span,
    },
    {
      resolveRoutes: (model) => resolveModel(ctx.principal, model, ["text"], ctx.observe),
      billing: call.wrapBilling ? call.wrapBilling(billing) : billing,
      affinityScope: ctx.principal.keyId ?? ctx.principal.userId ?? ctx.principal.accountId,
      caller: ctx.principal.accountId,
      admitTokens: tokenAdmission(ctx.principal),
    },
  );
}
