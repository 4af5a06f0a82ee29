/**
 * The gateway's side of the billing port (lib/billing/port.ts): who pays for a route call, what
 * a refusal answers, the charge headers — and the text handler's TextBilling on top of the port.
 */
import type { DB } from "../../db/client";
import type { ModelKind } from "../../db/schema";
import { billingFor, type BillingOptions } from "../billing/billing";
import { formatUsd } from "../billing/money";
import type { BillingPort, BillingRequest, Refusal, Settled } from "../billing/port";
import { errors, type ApiError } from "./errors";
import type { TextBilling, TextSettlement } from "./routes/text-types";
import { tracedPort } from "./trace-billing";
import type { RouteContext } from "./types";

export function billingRequest(ctx: RouteContext, route: string): BillingRequest {
  const p = ctx.principal;
  return {
    requestId: ctx.requestId,
    accountId: p.accountId,
    keyId: p.keyId,
    userId: p.userId,
    source: p.source,
    method: ctx.req.method,
    route,
    startedAt: ctx.startedAt,
    settleAfterReply: ctx.settleAfterReply,
  };
}

/**
 * The billing port for one route call (`route`: the public path, for the log row; `kind`: the
 * capability, which names the trace's operation). With tracing on, the port is traced: the one
 * place every capability gets its hold and settlement spans (trace-billing.ts).
 */
export function routeBilling(db: DB, ctx: RouteContext, route: string, kind: ModelKind, opts?: BillingOptions): BillingPort {
  return tracedPort(billingFor(db, billingRequest(ctx, route), opts), ctx.observe.span, kind);
}

/** The 402 answer of a refused reservation. */
export function refusalError(r: Refusal): ApiError {
  if (r.reason === "member_cap_exceeded") return errors.memberCapExceeded(r.capMicroUsd);
  if (r.reason === "budget_exceeded") return errors.budgetExceeded(r.budget);
  return r.reason === "key_limit_exceeded" ? errors.keyLimitExceeded() : errors.insufficientQuota();
}

/** `x-gateway-cost-usd`, and `x-gateway-balance-usd` when the balance after the charge is known. */
export function chargeHeaders(s: Settled): Record<string, string> {
  const h: Record<string, string> = { "x-gateway-cost-usd": formatUsd(s.chargedMicroUsd) };
  if (s.balanceAfterMicroUsd !== null) h["x-gateway-balance-usd"] = formatUsd(s.balanceAfterMicroUsd);
  return h;
}

/** The text handler's billing: the hot path's port (leases), its settlements as log fields. */
export function textBilling(db: DB, ctx: RouteContext, route: string): TextBilling {
  const port = routeBilling(db, ctx, route, "text", { hotPath: true });
  return {
    async reserve(amountMicroUsd) {
      const r = await port.reserve(amountMicroUsd);
      return r.ok ? r : { ok: false, error: refusalError(r), availableMicroUsd: r.reason === "insufficient_balance" ? r.availableMicroUsd : undefined };
    },
    settle: (s, opts) => port.settle(s.hold, { costMicroUsd: s.costMicroUsd, log: textLogFields(s) }, opts),
  };
}

function textLogFields(s: TextSettlement) {
  return {
    model: s.model,
    upstreamId: s.route?.upstream.id ?? null,
    upstreamProtocol: s.route?.upstream.protocol ?? null,
    upstreamModel: s.route?.upstreamModel ?? null,
    inboundProtocol: s.inboundProtocol,
    status: s.status,
    errorCode: s.errorCode ?? null,
    stream: s.stream,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    cacheReadTokens: s.cacheReadTokens,
    cacheWrite5mTokens: s.cacheWrite5mTokens,
    cacheWrite1hTokens: s.cacheWrite1hTokens,
    reasoningTokens: s.reasoningTokens,
    usageNote: s.usageNote,
    routing: s.routing,
    settlement: s.usageEstimated && s.reason === "completed" ? "completed_estimated" : s.reason,
    priceSnapshot: s.priceSnapshot,
    latencyMs: s.latencyMs,
    ttftMs: s.ttftMs,
    replayedItems: s.replayedItems,
    droppedParams: s.droppedParams,
    routeTrace: s.routeTrace,
    servedModel: s.servedModel,
  };
}
