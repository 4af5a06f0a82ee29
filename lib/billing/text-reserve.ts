/**
 * The text hold in ONE statement (one round trip, one commit) instead of a five-step
 * transaction: the account and key updates and the hold row are data-modifying CTEs that only
 * act when the conditional account update matched, account before key (lock-order.ts). Same rules as holds.ts `reserve`: the
 * balance minus what is held must cover the amount, and so must the key's remaining limit.
 */
import { sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { newId } from "../ids";
import type { ReserveInput, ReserveResult } from "./holds";
import { accountsFirst } from "./lock-order";
import { memberCapRefusal } from "./member-cap";

type Row = { a: boolean; h: boolean };

export async function reserveOnce(db: DB, input: ReserveInput): Promise<ReserveResult> {
  const amount = Math.max(0, Math.ceil(input.amountMicroUsd));
  const holdId = newId("hold");
  const keyId = input.keyId ?? null;
  const ttlMs = input.ttlMs ?? 15 * 60_000;
  // The statement relaxes its own commit (see relaxCommit): a hold lost to a database crash was
  // never charged against, so losing it can only cost us, never overdraw the account.
  let res;
  try {
    res = await db.execute<Row>(sql`
    with relaxed as (select set_config('synchronous_commit', 'off', true)),
    a as (
      update accounts set held_micro_usd = held_micro_usd + ${amount}
       where id = ${input.accountId}
         and balance_micro_usd - held_micro_usd >= ${amount}
         and balance_micro_usd >= 0
      returning id),
    k as (
      update api_keys set held_micro_usd = held_micro_usd + ${amount}
        from ${sql.raw(accountsFirst("a"))}
       where id = ${keyId}::text and a_done.n > 0
         and (limit_micro_usd is null or limit_micro_usd - spent_micro_usd - held_micro_usd >= ${amount})
      returning id),
    h as (
      insert into holds (id, account_id, key_id, amount_micro_usd, expires_at)
      select ${holdId}, ${input.accountId}, ${keyId}::text, ${amount}, now() + (${ttlMs}::int * interval '1 millisecond')
       where exists (select 1 from a) and (${keyId}::text is null or exists (select 1 from k))
      returning id)
    select exists (select 1 from a) as a, exists (select 1 from h) as h from relaxed`);
  } catch (err) {
    // The key's member would pass their monthly cap: the whole statement rolled back.
    const cap = memberCapRefusal(err);
    if (cap !== null) return { ok: false, reason: "member_cap_exceeded", capMicroUsd: cap };
    throw err;
  }
  const row = (res as unknown as { rows: Row[] }).rows[0]!;
  if (!row.a) return { ok: false, reason: "insufficient_balance" };
  if (!row.h) {
    // The key's limit refused after the account moved money to held: give it back.
    await db.execute(sql`update accounts set held_micro_usd = held_micro_usd - ${amount} where id = ${input.accountId}`);
    return { ok: false, reason: "key_limit_exceeded" };
  }
  return { ok: true, holdId, amountMicroUsd: amount };
}
