/**
 * The money side of a text request: the hold before the upstream call, and the settlement
 * (charge, release of the rest, ledger row and request-log row) in ONE transaction after it.
 * A request refused before any hold (bad input, unknown model, 402) still gets its log row.
 */
import { performance } from "node:perf_hooks";
import type { DB } from "../../db/client";
import { requestLogs } from "../../db/schema";
import { errors } from "../gateway/errors";
import type { TextBilling, TextSettlement } from "../gateway/routes/text-types";
import type { RouteContext } from "../gateway/types";
import { reserveOnce } from "./text-reserve";
import { settleBatcher } from "./text-settle-batch";

/** A hold outlives the longest failover chain, so the sweeper never returns money still in use. */
export const TEXT_HOLD_TTL_MS = 60 * 60_000;

export function textBilling(db: DB, ctx: RouteContext, routePath: string): TextBilling {
  const p = ctx.principal;
  return {
    async reserve(amountMicroUsd) {
      const r = await reserveOnce(db, { accountId: p.accountId, keyId: p.keyId, amountMicroUsd, ttlMs: TEXT_HOLD_TTL_MS });
      if (r.ok) return { ok: true, holdId: r.holdId };
      return { ok: false, error: r.reason === "key_limit_exceeded" ? errors.keyLimitExceeded() : errors.insufficientQuota() };
    },
    async settle(s) {
      const row = logRow(ctx, routePath, s);
      if (!s.holdId) {
        await db.insert(requestLogs).values(row).onConflictDoNothing();
        return { chargedMicroUsd: 0, balanceAfterMicroUsd: null };
      }
      const result = await settleBatcher(db).settle({
        holdId: s.holdId,
        accountId: p.accountId,
        keyId: p.keyId,
        costMicroUsd: s.costMicroUsd,
        idempotencyKey: `charge:${ctx.requestId}`,
        requestId: ctx.requestId,
        note: s.model ?? undefined,
        log: row,
      });
      return { chargedMicroUsd: result.chargedMicroUsd, balanceAfterMicroUsd: result.balanceAfterMicroUsd };
    },
  };
}

function logRow(ctx: RouteContext, route: string, s: TextSettlement): typeof requestLogs.$inferInsert {
  return {
    requestId: ctx.requestId,
    accountId: ctx.principal.accountId,
    keyId: ctx.principal.keyId,
    userId: ctx.principal.userId,
    source: ctx.principal.source,
    method: ctx.req.method,
    route,
    model: s.model,
    upstreamId: s.route?.upstream.id ?? null,
    inboundProtocol: s.inboundProtocol,
    upstreamProtocol: s.route?.upstream.protocol ?? null,
    status: s.status,
    errorCode: s.errorCode ?? null,
    stream: s.stream,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    costMicroUsd: s.costMicroUsd,
    settlement: s.usageEstimated && s.reason === "completed" ? "completed_estimated" : s.reason,
    priceSnapshot: s.priceSnapshot,
    latencyMs: Math.max(s.latencyMs, Math.round(performance.now() - ctx.startedAt)),
    ttftMs: s.ttftMs,
  };
}
