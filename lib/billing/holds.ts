/**
 * Per-request holds: a hold moves the worst-case cost of a request into `held` (account and
 * key) and records it as a `holds` row, so concurrent requests can never spend more than the
 * balance or the key's limit. The settlement (text-settle-batch.ts) deletes the row, charges
 * the real cost (never more than the hold) and returns the rest; a hold whose process died is
 * returned by the sweeper once it expires.
 */
import { eq, lt, sql } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { holds } from "../../db/schema";
import { newId } from "../ids";
import { accountCovers, accountsFirst, keyCovers, moveMoney } from "./lock-order";
import { spendLimitRefusal } from "./spend-limits";
import type { Hold, Refusal } from "./port";

export interface ReserveInput {
  accountId: string;
  keyId?: string | null;
  amountMicroUsd: number;
  /** How long before a sweeper may return the hold (a crashed process never settles). */
  ttlMs?: number;
}

export type RowHold = Extract<Hold, { kind: "row" }>;
export type HoldResult = { ok: true; hold: RowHold } | ({ ok: false } & Refusal);

const DEFAULT_HOLD_TTL_MS = 15 * 60_000;

/**
 * The TTL of a hold whose upstream calls may take `upstreamBudgetMs` in all (every route's
 * timeout, for failover): it outlives them, so the sweeper never returns money that a slow but
 * successful call is about to settle.
 */
export const holdTtlMs = (upstreamBudgetMs: number) => Math.max(DEFAULT_HOLD_TTL_MS, upstreamBudgetMs + 5 * 60_000);

type Row = { a: boolean; h: boolean };

/**
 * The hold in ONE statement (one round trip, one commit): the account and key updates and the
 * hold row are data-modifying CTEs that only act when the conditional account update matched,
 * account before key (lock-order.ts); the predicates are lock-order.ts's.
 */
export async function reserveHold(db: DB, input: ReserveInput): Promise<HoldResult> {
  const amount = Math.max(0, Math.ceil(input.amountMicroUsd));
  const holdId = newId("hold");
  const keyId = input.keyId ?? null;
  const ttlMs = input.ttlMs ?? DEFAULT_HOLD_TTL_MS;
  // The statement relaxes its own commit (see relaxCommit): a hold lost to a database crash was
  // never charged against, so losing it can only cost us, never overdraw the account.
  let res;
  try {
    res = await db.execute<Row>(sql`
    with relaxed as (select set_config('synchronous_commit', 'off', true)),
    a as (
      update accounts set held_micro_usd = held_micro_usd + ${amount}
       where id = ${input.accountId} and ${accountCovers(amount)}
      returning id),
    k as (
      update api_keys set held_micro_usd = held_micro_usd + ${amount}
        from ${sql.raw(accountsFirst("a"))}
       where id = ${keyId}::text and a_done.n > 0 and ${keyCovers(amount)}
      returning id),
    h as (
      insert into holds (id, account_id, key_id, amount_micro_usd, expires_at)
      select ${holdId}, ${input.accountId}, ${keyId}::text, ${amount}, now() + (${ttlMs}::int * interval '1 millisecond')
       where exists (select 1 from a) and (${keyId}::text is null or exists (select 1 from k))
      returning id)
    select exists (select 1 from a) as a, exists (select 1 from h) as h from relaxed`);
  } catch (err) {
    // The key's member would pass their monthly cap, or a budget its limit: the whole statement rolled back.
    const refusal = spendLimitRefusal(err);
    if (refusal) return { ok: false, ...refusal };
    throw err;
  }
  const row = (res as unknown as { rows: Row[] }).rows[0]!;
  if (!row.a) return { ok: false, reason: "insufficient_balance" };
  if (!row.h) {
    // The key's limit refused after the account moved money to held: give it back.
    await db.execute(sql`update accounts set held_micro_usd = held_micro_usd - ${amount} where id = ${input.accountId}`);
    return { ok: false, reason: "key_limit_exceeded" };
  }
  return { ok: true, hold: { kind: "row", holdId, amountMicroUsd: amount } };
}

/**
 * Returns a hold row's whole amount to its account and key, uncharged (the sweeper; an idle
 * lease). Inside the caller's transaction; 0 when the row was already gone.
 */
export async function returnHold(tx: DbOrTx, id: string, accountId: string, keyId: string | null): Promise<number> {
  const removed = await tx.delete(holds).where(eq(holds.id, id)).returning({ amount: holds.amountMicroUsd });
  if (!removed.length) return 0;
  await moveMoney(tx, { accountId, keyId, held: -removed[0]!.amount });
  return removed[0]!.amount;
}

/** Returns every expired hold (a crashed process's holds and leases) to its account; run periodically. */
export async function sweepExpiredHolds(db: DB, now = new Date()): Promise<number> {
  const expired = await db.select({ id: holds.id, accountId: holds.accountId, keyId: holds.keyId }).from(holds).where(lt(holds.expiresAt, now)).limit(500);
  for (const h of expired) await db.transaction((tx) => returnHold(tx, h.id, h.accountId, h.keyId));
  return expired.length;
}
