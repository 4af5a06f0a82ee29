/**
 * The money side of a text request: the hold before the upstream call, and the settlement
 * (charge, release of the rest, ledger row and request-log row) in ONE transaction after it.
 * A request refused before any hold (bad input, unknown model, 402) still gets its log row.
 */
import { performance } from "node:perf_hooks";
import type { DB } from "../../db/client";
import { sql } from "drizzle-orm";
import { requestLogs } from "../../db/schema";
import { errors } from "../gateway/errors";
import { env } from "../env";
import { logger } from "../logger";
import type { TextBilling, TextSettlement } from "../gateway/routes/text-types";
import type { RouteContext } from "../gateway/types";
import { reserveOnce } from "./text-reserve";
import { DEFAULT_LEASE, LeaseManager } from "./text-lease";
import { settleBatcher } from "./text-settle-batch";

const LEASES = Symbol.for("gateway.textLeases");

/**
 * The process-wide lease manager, or null when leases are off (GATEWAY_TEXT_LEASES=off: every
 * request then takes its own hold row, as the media routes do).
 */
export function textLeases(db: DB): LeaseManager | null {
  if (process.env.GATEWAY_TEXT_LEASES === "off") return null;
  const g = globalThis as unknown as Record<symbol, { db: DB; m: LeaseManager } | undefined>;
  const cur = g[LEASES];
  if (cur && cur.db === db) return cur.m;
  cur?.m.stop();
  const m = new LeaseManager(db, DEFAULT_LEASE, !!env().DATABASE_URL);
  g[LEASES] = { db, m };
  return m;
}

/** Hold ids handed to the text handler: `lease:<lease row>:<amount>` for holds served from a lease. */
function leaseHoldId(leaseId: string, amount: number): string {
  return `lease:${leaseId}:${amount}`;
}

function parseLeaseHoldId(holdId: string): { leaseId: string; amount: number } | null {
  if (!holdId.startsWith("lease:")) return null;
  const at = holdId.lastIndexOf(":");
  return { leaseId: holdId.slice(6, at), amount: Number(holdId.slice(at + 1)) };
}

/** A hold outlives the longest failover chain, so the sweeper never returns money still in use. */
export const TEXT_HOLD_TTL_MS = 60 * 60_000;

export function textBilling(db: DB, ctx: RouteContext, routePath: string): TextBilling {
  const p = ctx.principal;
  return {
    async reserve(amountMicroUsd) {
      const leases = textLeases(db);
      const r = leases
        ? await leases.reserve(p.accountId, p.keyId, amountMicroUsd).then((g) => (g.ok ? { ok: true as const, holdId: leaseHoldId(g.leaseId, g.amountMicroUsd) } : g))
        : await reserveOnce(db, { accountId: p.accountId, keyId: p.keyId, amountMicroUsd, ttlMs: TEXT_HOLD_TTL_MS });
      if (r.ok) return { ok: true, holdId: r.holdId };
      if (r.reason === "key_limit_exceeded") return { ok: false, error: errors.keyLimitExceeded() };
      if (r.reason === "member_cap_exceeded") return { ok: false, error: errors.memberCapExceeded(r.capMicroUsd) };
      // Off the hot path: only a refused request reads what it could have had — the free balance
      // plus the account's leases, which a claim hands back (text-lease.ts).
      const free = (await db.execute(sql`
        select (select balance_micro_usd - held_micro_usd from accounts where id = ${p.accountId})
             + coalesce((select sum(amount_micro_usd) from holds where account_id = ${p.accountId} and instance_id is not null), 0) as spendable`)) as unknown as {
        rows: { spendable: string | number | null }[];
      };
      return { ok: false, error: errors.insufficientQuota(), availableMicroUsd: Math.max(0, Number(free.rows[0]?.spendable ?? 0)) };
    },
    async settle(s, opts) {
      const row = logRow(ctx, routePath, s);
      if (!s.holdId) {
        await db.insert(requestLogs).values(row).onConflictDoNothing();
        return { chargedMicroUsd: 0, balanceAfterMicroUsd: null };
      }
      const lease = parseLeaseHoldId(s.holdId);
      const submitted = settleBatcher(db).submit({
        holdId: lease ? lease.leaseId : s.holdId,
        lease: lease ? { heldMicroUsd: lease.amount } : undefined,
        accountId: p.accountId,
        keyId: p.keyId,
        costMicroUsd: s.costMicroUsd,
        idempotencyKey: `charge:${ctx.requestId}`,
        requestId: ctx.requestId,
        note: s.model ?? undefined,
        log: row,
      });
      // The request's hold returns to the lease; its charge (the batcher's, clamped to the hold) leaves it.
      if (lease) textLeases(db)?.released(lease.leaseId, p.accountId, p.keyId, lease.amount, submitted.chargedMicroUsd);
      if (opts?.early && ctx.settleAfterReply && submitted.balanceAfterMicroUsd !== null) {
        // The reply goes now; the settlement commits a moment later (retried, settle-retry.ts; if
        // the database refuses it for good, that is logged and the hold goes back uncharged).
        submitted.result.catch((err) => logger().error({ err, requestId: ctx.requestId }, "text settlement failed after the reply"));
        return { chargedMicroUsd: submitted.chargedMicroUsd, balanceAfterMicroUsd: submitted.balanceAfterMicroUsd };
      }
      const result = await submitted.result;
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
    cacheReadTokens: s.cacheReadTokens ?? 0,
    cacheWrite5mTokens: s.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: s.cacheWrite1hTokens ?? 0,
    reasoningTokens: s.reasoningTokens ?? 0,
    usageNote: s.usageNote ?? null,
    routing: s.routing ?? null,
    costMicroUsd: s.costMicroUsd,
    settlement: s.usageEstimated && s.reason === "completed" ? "completed_estimated" : s.reason,
    priceSnapshot: s.priceSnapshot,
    latencyMs: Math.max(s.latencyMs, Math.round(performance.now() - ctx.startedAt)),
    ttftMs: s.ttftMs,
    replayedItems: s.replayedItems ?? null,
    droppedParams: s.droppedParams ?? null,
    servedModel: s.servedModel ?? null,
  };
}
