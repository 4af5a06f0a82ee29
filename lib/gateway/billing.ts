/**
 * The gateway's side of the billing port (lib/billing/port.ts): who pays for a route call, what
 * a refusal answers, the charge headers. Every capability calls the port itself.
 */
import type { DB } from "../../db/client";
import type { ModelKind } from "../../db/schema";
import { billingFor, type BillingOptions } from "../billing/billing";
import { formatUsd } from "../billing/money";
import type { BillingPort, BillingRequest, Refusal, Settled } from "../billing/port";
import { errors, type ApiError } from "./errors";
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
