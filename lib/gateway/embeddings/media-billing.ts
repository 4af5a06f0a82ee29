/**
 * Reserve, settle and release for the media routes (embeddings and images share it), each with
 * its request-log row. A settle or release and its log row commit in one transaction, so the
 * usage log and the ledger always agree; nothing here ever spans an upstream call.
 */
import { performance } from "node:perf_hooks";
import type { DB } from "../../../db/client";
import { requestLogs, type ModelPrice } from "../../../db/schema";
import { formatUsd } from "../../billing/money";
import { reserve, settleInTx } from "../../billing/holds";
import { settleWithRepair, UNKNOWN_COST_NOTE, withNote } from "../../billing/settle-retry";
import { errors, type ApiError } from "../errors";
import type { RouteContext } from "../types";

export interface MediaLogFields {
  /** The public route, e.g. "/v1/embeddings". */
  route: string;
  model: string | null;
  upstreamId?: string | null;
  upstreamProtocol?: string | null;
  status: number;
  errorCode?: string | null;
  inputTokens?: number;
  outputTokens?: number;
  costMicroUsd?: number;
  /** completed | upstream_error | rejected | invalid */
  settlement: string;
  price?: ModelPrice | null;
}

export interface Hold {
  holdId: string;
  amountMicroUsd: number;
}

/**
 * Holds the worst case. `upstreamBudgetMs` is the longest the upstream calls may take (every
 * route's timeout, for failover): the hold outlives it, so the sweeper never returns money
 * that a slow but successful call is about to settle.
 */
export async function reserveMedia(
  db: DB,
  ctx: RouteContext,
  amountMicroUsd: number,
  upstreamBudgetMs: number,
): Promise<{ ok: true; hold: Hold } | { ok: false; error: ApiError }> {
  const r = await reserve(db, {
    accountId: ctx.principal.accountId,
    keyId: ctx.principal.keyId,
    amountMicroUsd,
    ttlMs: Math.max(15 * 60_000, upstreamBudgetMs + 5 * 60_000),
  });
  if (r.ok) return { ok: true, hold: { holdId: r.holdId, amountMicroUsd: r.amountMicroUsd } };
  return { ok: false, error: r.reason === "member_cap_exceeded" ? errors.memberCapExceeded(r.capMicroUsd) : r.reason === "key_limit_exceeded" ? errors.keyLimitExceeded() : errors.insufficientQuota() };
}

/** Charges `costMicroUsd` (clamped to the hold) and writes the log row; returns the billing headers. */
export async function settleMedia(
  db: DB,
  ctx: RouteContext,
  hold: Hold,
  costMicroUsd: number,
  log: MediaLogFields,
): Promise<{ chargedMicroUsd: number; headers: Record<string, string> }> {
  // Retried, and with a repaired log row if the row was refused (settle-retry.ts): never a lost charge.
  const row0 = logRow(ctx, log);
  if (!Number.isFinite(costMicroUsd)) row0.usageNote = withNote(row0.usageNote, UNKNOWN_COST_NOTE);
  const result = await settleWithRepair(row0, (row) =>
    db.transaction(async (tx) => {
      const s = await settleInTx(tx, {
        holdId: hold.holdId,
        accountId: ctx.principal.accountId,
        keyId: ctx.principal.keyId,
        costMicroUsd,
        idempotencyKey: `charge:${ctx.requestId}`,
        requestId: ctx.requestId,
        note: log.model ?? undefined,
      });
      await tx.insert(requestLogs).values({ ...row, costMicroUsd: s.chargedMicroUsd }).onConflictDoNothing();
      return s;
    }),
  );
  return {
    chargedMicroUsd: result.chargedMicroUsd,
    headers: {
      "x-gateway-cost-usd": formatUsd(result.chargedMicroUsd),
      "x-gateway-balance-usd": formatUsd(result.balanceAfterMicroUsd),
    },
  };
}

/** Returns the whole hold (nothing charged) and logs the failure, in one transaction. */
export async function releaseMedia(db: DB, ctx: RouteContext, hold: Hold, log: MediaLogFields): Promise<void> {
  await settleWithRepair(logRow(ctx, { ...log, costMicroUsd: 0 }), (row) =>
    db.transaction(async (tx) => {
      await settleInTx(tx, {
        holdId: hold.holdId,
        accountId: ctx.principal.accountId,
        keyId: ctx.principal.keyId,
        costMicroUsd: 0,
        idempotencyKey: `release:${hold.holdId}`,
        requestId: ctx.requestId,
      });
      await tx.insert(requestLogs).values(row).onConflictDoNothing();
    }),
  );
}

/** A request that never reached billing (bad input, unknown model, 402). */
export async function logMedia(db: DB, ctx: RouteContext, log: MediaLogFields): Promise<void> {
  await db.insert(requestLogs).values(logRow(ctx, log)).onConflictDoNothing();
}

function logRow(ctx: RouteContext, log: MediaLogFields): typeof requestLogs.$inferInsert {
  return {
    requestId: ctx.requestId,
    accountId: ctx.principal.accountId,
    keyId: ctx.principal.keyId,
    userId: ctx.principal.userId,
    source: ctx.principal.source,
    method: ctx.req.method,
    route: log.route,
    model: log.model,
    upstreamId: log.upstreamId ?? null,
    inboundProtocol: "openai",
    upstreamProtocol: log.upstreamProtocol ?? null,
    status: log.status,
    errorCode: log.errorCode ?? null,
    stream: false,
    inputTokens: log.inputTokens ?? 0,
    outputTokens: log.outputTokens ?? 0,
    costMicroUsd: log.costMicroUsd ?? 0,
    settlement: log.settlement,
    priceSnapshot: log.price ?? null,
    latencyMs: Math.round(performance.now() - ctx.startedAt),
  };
}
