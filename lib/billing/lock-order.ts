/**
 * The one lock order of every money path: **hold rows → accounts → api_keys** (then anything
 * else: ledger and log rows are inserts, task rows are locked before all of it by their own
 * compare-and-set); several rows of one table in id order. Two transactions that take the same
 * rows in the same order wait for each other instead of deadlocking; one path taking the key
 * before the account (video submission did) deadlocked against every other path under load.
 *
 * Statements written with the query builder go through `moveMoney`, which updates the account
 * and then the key. The hot-path SQL statements (text-reserve.ts, text-settle-batch.ts, the
 * lease statements in text-lease.ts) keep the order with `accountsFirst`: the key CTE reads
 * the account CTE to its end, so PostgreSQL has locked every account row before any key row.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { accounts, apiKeys } from "../../db/schema";

/**
 * For the FROM list of a key-updating CTE, given the name of the account-updating CTE (a
 * `returning` one): reads it to its end first (a CTE's rows come on demand, so `exists` would
 * not be enough with several accounts). `<cte>_done.n` is the number of account rows changed.
 */
export const accountsFirst = (cte: string) => `(select count(*) as n from ${cte}) ${cte}_done`;

export interface MoneyMove {
  accountId: string;
  keyId?: string | null;
  /** Added to accounts.balance_micro_usd (negative = charge). */
  balance?: number;
  /** Added to accounts.held_micro_usd (and api_keys.held_micro_usd when there is a key). */
  held?: number;
  /** Added to api_keys.spent_micro_usd. */
  spent?: number;
  /**
   * Refuse unless the account can spend this much (balance − held ≥ it, balance ≥ 0) and the
   * key's limit covers it (limit − spent − held ≥ it). Checked before the change.
   */
  require?: number;
}

export type MoveResult = { ok: true; balanceAfterMicroUsd: number } | { ok: false; reason: "insufficient_balance" | "key_limit_exceeded" };

/**
 * Applies one change to an account and its key, account first. A refusal leaves the account
 * row already changed: the caller's transaction must roll back (every caller throws).
 */
export async function moveMoney(tx: DbOrTx, m: MoneyMove): Promise<MoveResult> {
  const balance = m.balance ?? 0;
  const held = m.held ?? 0;
  const conds: SQL[] = [eq(accounts.id, m.accountId)];
  if (m.require !== undefined) {
    conds.push(sql`${accounts.balanceMicroUsd} - ${accounts.heldMicroUsd} >= ${m.require}`);
    // A zero amount still needs a non-negative balance (refunds/disputes can push it below).
    conds.push(sql`${accounts.balanceMicroUsd} >= 0`);
  }
  const [a] = await tx
    .update(accounts)
    .set({ balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${balance}`, heldMicroUsd: sql`${accounts.heldMicroUsd} + ${held}` })
    .where(and(...conds))
    .returning({ balance: accounts.balanceMicroUsd });
  if (!a) return { ok: false, reason: "insufficient_balance" };
  if (m.keyId) {
    const spent = m.spent ?? 0;
    const kconds: SQL[] = [eq(apiKeys.id, m.keyId)];
    if (m.require !== undefined)
      kconds.push(sql`(${apiKeys.limitMicroUsd} is null or ${apiKeys.limitMicroUsd} - ${apiKeys.spentMicroUsd} - ${apiKeys.heldMicroUsd} >= ${m.require})`);
    const k = await tx
      .update(apiKeys)
      .set({
        // A refund never takes the key's spend below zero.
        spentMicroUsd: spent < 0 ? sql`greatest(0, ${apiKeys.spentMicroUsd} + ${spent})` : sql`${apiKeys.spentMicroUsd} + ${spent}`,
        heldMicroUsd: sql`${apiKeys.heldMicroUsd} + ${held}`,
      })
      .where(and(...kconds))
      .returning({ id: apiKeys.id });
    if (!k.length && m.require !== undefined) return { ok: false, reason: "key_limit_exceeded" };
  }
  return { ok: true, balanceAfterMicroUsd: a.balance };
}
