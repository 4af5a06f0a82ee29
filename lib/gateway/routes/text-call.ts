/** The one text call every text entry makes (decision 0024's billing port, decision 0006's order). */
import type { DB } from "../../../db/client";
import { captureContent, contentAttribute } from "../../tracing";
import type { BillingPort } from "../../billing/port";
import { routeBilling } from "../billing";
import { badAnswer } from "../errors";
import { resolveModel } from "../catalog";
import type { GatewayResponse } from "../http";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { guardrailsFor } from "../guardrails/registry";
import { cacheScopeFor } from "../response-cache/cache";
import { tokenAdmission } from "../token-limits";
import type { RouteContext } from "../types";
import { inlineFileRefs } from "../files/inline-refs";
import { handleText } from "./text-handler";
import type { TextCall } from "./text-types";
import type { ContentLogTarget } from "../../content-logs/store";

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
  wrapBilling?: (billing: BillingPort) => BillingPort;
  /**
   * A vendor batch's answer to this request (decision 0070): the entry `rowId` served it, and its
   * JSON is decoded instead of calling that entry again; the key's token limits are not asked
   * (the batch's hold paid for the line) and nothing is retried.
   */
  answered?: { rowId: string; json: Record<string, unknown> };
}

const NO_RETRY = { retries: 0, baseDelayMs: 0, maxDelayMs: 0 };

/**
 * The one text call every entry makes (the three generation routes, Google's model methods,
 * POST /v1/responses and background responses): the key's routes, the billing, the
 * client's vendor headers, and a stream that ends before its settlement starts (decision 0006).
 */
export function textCall(ctx: RouteContext, db: DB, path: string, call: TextCallInput): Promise<GatewayResponse> {
  const answered = call.answered;
  const billing = routeBilling(db, ctx, path, "text", { hotPath: true }); // the hot path's port (leases), traced at the port
  const span = ctx.observe.span;
  const guardrails = guardrailsFor(ctx.principal.accountId, ctx.principal.keyId);
  const capture = span && call.requestBody && captureContent();
  // Under guardrails the trace gets the body as the guardrails left it (masked), once they ran.
  if (capture && !guardrails) span.setAttribute("gateway.request.body", contentAttribute(call.requestBody!()));
  const tc: TextCall = {
    protocol: call.protocol,
    body: call.body,
    bodyBytes: call.bodyBytes,
    parseOpts: call.parseOpts,
    signal: call.signal ?? ctx.req.signal,
    startedAt: ctx.startedAt,
    headers: ctx.req.headers,
    settleAfterReply: ctx.settleAfterReply && !ctx.observe.span,
  };
  const answer = handleText(
    tc,
    {
      // Only a vendor batch's answer narrows the routes: an interactive request pays no extra promise.
      resolveRoutes: answered
        ? (model) => resolveModel(ctx.principal, model, ["text"], ctx.observe).then((r) => (r.ok ? { ok: true, value: { ...r.value, routes: r.value.routes.filter((x) => x.rowId === answered.rowId) } } : r))
        : (model) => resolveModel(ctx.principal, model, ["text"], ctx.observe),
      billing: call.wrapBilling ? call.wrapBilling(billing) : billing,
      affinityScope: ctx.principal.keyId ?? ctx.principal.userId ?? ctx.principal.accountId,
      caller: ctx.principal.accountId,
      admitTokens: answered ? undefined : tokenAdmission(ctx.principal),
      retry: answered ? NO_RETRY : undefined,
      answered: answered && ((_route, prepared, adapter) => (adapter.decode ? adapter.decode(prepared, answered.json) : Promise.resolve(badAnswer("This upstream's answers cannot be decoded from a batch.")))),
      guardrails,
      // A stored Response (its own billing step) is never replayed: its id would be stored twice.
      cache: call.wrapBilling ? null : cacheScopeFor(ctx.req.headers, ctx.principal.responseCache, ctx.principal.accountId, db),
      contentLog: contentLogTarget(ctx),
      inlineFiles: (body) => inlineFileRefs(db, ctx.principal, call.protocol.name, body),
    },
  );
  if (!capture || !guardrails) return answer;
  return answer.then((r) => {
    span.setAttribute("gateway.request.body", contentAttribute(JSON.stringify(tc.body)));
    return r;
  });
}

/** Whose content log this request writes, when its organisation logs prompts and answers (else undefined: nothing is made). */
function contentLogTarget(ctx: RouteContext): ContentLogTarget | undefined {
  const p = ctx.principal;
  return p.contentLog ? { accountId: p.accountId, keyId: p.keyId, userId: p.userId, requestId: ctx.requestId, policy: p.contentLog } : undefined;
}
