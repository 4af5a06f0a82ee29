/**
 * The one lock order of every money path: **hold rows → accounts → api_keys → memberships →
 * budgets** (those two through the api_keys trigger of migrations 0008 and 0013; then anything
 * else: ledger and log rows are inserts, task rows are locked before all of it by their own
 * compare-and-set); several rows of one table in id order. Two transactions that take the same
 * rows in the same order wait for each other instead of deadlocking; one path taking the key
 * before the account (video submission did) deadlocked against every other path under load.
 *
 * Statements written with the query builder go through `moveMoney`, which updates the account
 * and then the key. The SQL statements (holds.ts `reserveHold`, text-settle-batch.ts, the
 * lease statements in text-lease.ts) keep the order with `accountsFirst`: the key CTE reads
 * the account CTE to its end, so PostgreSQL has locked every account row before any key row.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { accounts, apiKeys, type BudgetPeriod, type BudgetScope } from "../../db/schema";
import { spendLimitRefusal } from "./spend-limits";
import type { Refusal } from "./port";

/**
 * For the FROM list of a key-updating CTE, given the name of the account-updating CTE (a
 * `returning` one): reads it to its end first (a CTE's rows come on demand, so `exists` would
 * not be enough with several accounts). `<cte>_done.n` is the number of account rows changed.
 */
export const accountsFirst = (cte: string) => `(select count(*) as n from ${cte}) ${cte}_done`;

/**
 * The two money predicates, written once for every path (the query builder's and the SQL
 * statements'). Unqualified columns: for the WHERE of an `update accounts` / `update api_keys`.
 *
 * The account can spend `amount`: balance − held covers it, and the balance is not below zero
 * (refunds and disputes can push it there; then even a free request is refused).
 */
export const accountCovers = (amount: number | SQL) => sql`(balance_micro_usd - held_micro_usd >= ${amount} and balance_micro_usd >= 0)`;

/** The key's limit covers `amount` beyond what it has spent and holds (no limit: always). */
export const keyCovers = (amount: number | SQL) => sql`(limit_micro_usd is null or limit_micro_usd - spent_micro_usd - held_micro_usd >= ${amount})`;

/** Thrown inside a money transaction to roll it back with the refusal (see `refusedOr`). */
export class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.reason);
  }
}

/**
 * Runs a transaction that throws Refused to roll back: its result, or the refusal — also when
 * the database refused it (a member's monthly cap or a budget, raised by the api_keys trigger:
 * spend-limits.ts).
 */
export async function refusedOr<T>(run: () => Promise<T>): Promise<T | ({ ok: false } & Refusal)> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Refused) return { ok: false, ...err.refusal };
    const refusal = spendLimitRefusal(err);
    if (refusal) return { ok: false, ...refusal };
    throw err;
  }
}

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
  /**
   * With `require` and no `held`: hold `require` plus up to `extra` more, but never more than
   * `share` of what would still be spendable after `require` (text leases, text-lease.ts).
   */
  grow?: { extra: number; share: number };
}

export type MoveResult =
  | { ok: true; balanceAfterMicroUsd: number; /** What was added to held (with `grow`). */ heldMicroUsd: number }
  | ({ ok: false } & Refusal);

/**
 * Applies one change to an account and its key, account first. A refusal leaves the account
 * row already changed: the caller's transaction must roll back (every caller throws).
 */
export async function moveMoney(tx: DbOrTx, m: MoneyMove): Promise<MoveResult> {
  const balance = m.balance ?? 0;
  if (m.grow && m.require !== undefined) {
    // The account row is locked first (FOR UPDATE), so the share is taken of its current state.
    const res = (await tx.execute(sql`
      with cur as (
        select balance_micro_usd - held_micro_usd - ${m.require} as rest from accounts where id = ${m.accountId} for update),
      g as (
        select (${m.require}::bigint + least(${Math.max(0, m.grow.extra)}::bigint, floor(greatest(0, rest) * ${m.grow.share}::float8)::bigint)) as v from cur)
      update accounts a set held_micro_usd = a.held_micro_usd + g.v from g
       where a.id = ${m.accountId} and ${accountCovers(sql`g.v`)}
      returning g.v as moved, a.balance_micro_usd as balance`)) as unknown as { rows: { moved: string | number; balance: string | number }[] };
    const row = res.rows[0];
    if (!row) return { ok: false, reason: "insufficient_balance" };
    const moved = Number(row.moved);
    if (m.keyId && !(await keyPart(tx, m.keyId, 0, moved, moved))) return { ok: false, reason: "key_limit_exceeded" };
    return { ok: true, balanceAfterMicroUsd: Number(row.balance), heldMicroUsd: moved };
  }
  const held = m.held ?? 0;
  const conds: SQL[] = [eq(accounts.id, m.accountId)];
  if (m.require !== undefined) conds.push(accountCovers(m.require));
  const [a] = await tx
    .update(accounts)
    .set({ balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${balance}`, heldMicroUsd: sql`${accounts.heldMicroUsd} + ${held}` })
    .where(and(...conds))
    .returning({ balance: accounts.balanceMicroUsd });
  if (!a) return { ok: false, reason: "insufficient_balance" };
  if (m.keyId && !(await keyPart(tx, m.keyId, m.spent ?? 0, held, m.require)) && m.require !== undefined) return { ok: false, reason: "key_limit_exceeded" };
  // A checked charge without a hold (video): the member's cap and budgets (holds are checked by the trigger).
  if (m.keyId && m.require !== undefined && held <= 0 && (m.spent ?? 0) > 0) {
    const refusal = await overLimit(tx, m.keyId);
    if (refusal) return { ok: false, ...refusal };
  }
  return { ok: true, balanceAfterMicroUsd: a.balance, heldMicroUsd: held };
}

/**
 * The key's member's cap or a budget covering the key that is past its limit — or would be with
 * `extra` more held — else null. After a charge (extra 0) it reads the rows the api_keys trigger
 * (migrations 0008, 0013) has just updated, and so locked, in this transaction; with `extra` it
 * tells which limit binds when a reservation was refused for another reason (billing.ts).
 */
export async function overLimit(tx: DbOrTx, keyId: string, extra = 0): Promise<Refusal | null> {
  const r = (await tx.execute(sql`
    select 'cap' as kind, m.monthly_cap_micro_usd as lim, null as id, null as scope, null as period, null as win, 0 as left
      from memberships m join api_keys k on k.account_id = m.account_id and k.created_by_user_id = m.user_id
     where k.id = ${keyId} and m.monthly_cap_micro_usd is not null and m.month_spent_micro_usd + m.held_micro_usd + ${extra} > m.monthly_cap_micro_usd
    union all
    select 'budget', b.limit_micro_usd, b.id, b.scope, b.period, b."window", greatest(0, b.limit_micro_usd - b.spent_micro_usd - b.held_micro_usd)
      from budgets b join api_keys k on k.account_id = b.account_id
     where k.id = ${keyId} and b.limit_micro_usd is not null and b.spent_micro_usd + b.held_micro_usd + ${extra} > b.limit_micro_usd
       and (b.scope = 'organisation' or (b.scope = 'member' and b.user_id = k.created_by_user_id) or (b.scope = 'key' and b.key_id = k.id))
     limit 1`)) as unknown as { rows: { kind: string; lim: string | number; id: string; scope: BudgetScope; period: BudgetPeriod; win: string; left: string | number }[] };
  const row = r.rows[0];
  if (!row) return null;
  if (row.kind === "cap") return { reason: "member_cap_exceeded", capMicroUsd: Number(row.lim) };
  // After a charge (it will roll back) nothing was left; before a hold, what is left of it.
  return { reason: "budget_exceeded", budget: { id: row.id, scope: row.scope, period: row.period, limitMicroUsd: Number(row.lim), window: row.win, leftMicroUsd: extra > 0 ? Number(row.left) : 0 } };
}

/** The key's side of a move (after the account's); false when its limit does not cover `require`. */
async function keyPart(tx: DbOrTx, keyId: string, spent: number, held: number, require: number | undefined): Promise<boolean> {
  const conds: SQL[] = [eq(apiKeys.id, keyId)];
  if (require !== undefined) conds.push(keyCovers(require));
  const k = await tx
    .update(apiKeys)
    .set({
      // A refund never takes the key's spend below zero.
      spentMicroUsd: spent < 0 ? sql`greatest(0, ${apiKeys.spentMicroUsd} + ${spent})` : sql`${apiKeys.spentMicroUsd} + ${spent}`,
      heldMicroUsd: sql`${apiKeys.heldMicroUsd} + ${held}`,
    })
    .where(and(...conds))
    .returning({ id: apiKeys.id });
  return k.length > 0;
}
