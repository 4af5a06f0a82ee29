/**
 * Migration 0006 (organisations) on a populated database: the older migrations are applied,
 * users, balances, ledgers, holds, keys, request logs, tasks and webhooks are written, then the
 * new migration runs. Nothing is lost, every balance still equals its ledger, and every user
 * owns their personal organisation.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "./testing";

const ALL = path.resolve(import.meta.dirname, "migrations");
const BEFORE = "0006_organisations";

/** A copy of the migrations folder holding only those before `tag`. */
function olderMigrations(tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-migrations-"));
  fs.mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(fs.readFileSync(path.join(ALL, "meta/_journal.json"), "utf8")) as { entries: { tag: string; idx: number }[] };
  const stop = journal.entries.findIndex((e) => e.tag === tag);
  expect(stop).toBeGreaterThan(0);
  const entries = journal.entries.slice(0, stop);
  for (const e of entries) fs.copyFileSync(path.join(ALL, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  fs.writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify({ ...journal, entries }));
  return dir;
}

let t: TestDb;
const rows = async <T>(q: ReturnType<typeof sql>) => ((await t.db.execute(q)) as unknown as { rows: T[] }).rows;

interface Seeded {
  user: string;
  account: string;
  balance: number;
  held: number;
}
const seeded: Seeded[] = [];
let counts: Record<string, number>;

const TABLES = ["accounts", "users", "api_keys", "ledger_entries", "holds", "request_logs", "tasks", "webhook_deliveries"];

async function tableCounts() {
  const out: Record<string, number> = {};
  for (const table of TABLES) out[table] = (await rows<{ n: number }>(sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;
  return out;
}

beforeAll(async () => {
  t = await createTestDb({ migrationsFolder: olderMigrations(BEFORE) });
  const has = await rows<{ n: number }>(sql`select count(*)::int as n from information_schema.tables where table_name = 'memberships'`);
  expect(has[0]!.n).toBe(0);
  for (let i = 0; i < 5; i++) {
    const account = `acct_m${i}`;
    const user = `usr_m${i}`;
    const deltas = [10_000_000 * (i + 1), -1_234 * (i + 1), -99, 500 * i];
    let balance = 0;
    await t.db.execute(sql`insert into accounts (id, name) values (${account}, ${`m${i}@example.com`})`);
    await t.db.execute(sql`insert into users (id, account_id, email, role) values (${user}, ${account}, ${`m${i}@example.com`}, ${i === 0 ? "admin" : "user"})`);
    for (const [n, d] of deltas.entries()) {
      balance += d;
      await t.db.execute(
        sql`insert into ledger_entries (account_id, delta_micro_usd, balance_after_micro_usd, kind, idempotency_key) values (${account}, ${d}, ${balance}, ${d > 0 ? "topup" : "charge"}, ${`seed:${i}:${n}`})`,
      );
    }
    const held = 777 * i;
    await t.db.execute(sql`update accounts set balance_micro_usd = ${balance}, held_micro_usd = ${held} where id = ${account}`);
    await t.db.execute(
      // Keys made with the CLI had no creator: the migration gives them the account's user.
      sql`insert into api_keys (id, account_id, name, hash, prefix, last4, held_micro_usd, created_by_user_id) values (${`key_m${i}`}, ${account}, 'k', ${`hash${i}`}, 'sk-x', 'abcd', ${held}, ${i % 2 ? user : null})`,
    );
    if (held) await t.db.execute(sql`insert into holds (id, account_id, key_id, amount_micro_usd, expires_at) values (${`hold_m${i}`}, ${account}, ${`key_m${i}`}, ${held}, now() + interval '1 hour')`);
    await t.db.execute(sql`insert into request_logs (request_id, account_id, key_id, method, route, status, cost_micro_usd) values (${`req_m${i}`}, ${account}, ${`key_m${i}`}, 'POST', '/v1/chat/completions', 200, ${1_234 * (i + 1)})`);
    await t.db.execute(sql`insert into tasks (id, account_id, model) values (${`task_m${i}`}, ${account}, 'demo-video')`);
    await t.db.execute(sql`insert into webhook_deliveries (id, task_id, account_id, url, body, event_status) values (${`whd_m${i}`}, ${`task_m${i}`}, ${account}, 'https://x.example/h', '{}', 'completed')`);
    seeded.push({ user, account, balance, held });
  }
  counts = await tableCounts();
  await t.migrate();
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe("migration 0006 on a populated database", () => {
  it("keeps every row", async () => {
    expect(await tableCounts()).toEqual(counts);
  });

  it("keeps every balance and held amount, and each still equals the sum of its ledger", async () => {
    for (const s of seeded) {
      const [a] = await rows<{ balance: number; held: number; ledger: number }>(
        sql`select balance_micro_usd::bigint as balance, held_micro_usd::bigint as held,
                   (select coalesce(sum(delta_micro_usd), 0)::bigint from ledger_entries l where l.account_id = a.id) as ledger
              from accounts a where id = ${s.account}`,
      );
      expect(Number(a!.balance), s.account).toBe(s.balance);
      expect(Number(a!.held), s.account).toBe(s.held);
      expect(Number(a!.ledger), s.account).toBe(s.balance);
    }
  });

  it("makes every user the owner of their personal organisation, and nothing more", async () => {
    const m = await rows<{ account_id: string; user_id: string; role: string; personal: boolean }>(
      sql`select m.account_id, m.user_id, m.role, a.personal from memberships m join accounts a on a.id = m.account_id order by m.user_id`,
    );
    expect(m).toEqual(seeded.map((s) => ({ account_id: s.account, user_id: s.user, role: "owner", personal: true })));
    const keys = await rows<{ id: string; created_by_user_id: string }>(sql`select id, created_by_user_id from api_keys order by id`);
    expect(keys).toEqual(seeded.map((s, i) => ({ id: `key_m${i}`, created_by_user_id: s.user })));
    const held = await rows<{ user_id: string; held: number }>(sql`select user_id, held_micro_usd::bigint as held from memberships order by user_id`);
    expect(held.map((h) => Number(h.held))).toEqual(seeded.map((s) => s.held));
    const [tz] = await rows<{ tz: string }>(sql`select distinct time_zone as tz from accounts`);
    expect(tz!.tz).toBe("UTC");
  });

  it("is a no-op when run again (the migrator records it)", async () => {
    await t.migrate();
    const [n] = await rows<{ n: number }>(sql`select count(*)::int as n from memberships`);
    expect(n!.n).toBe(seeded.length);
  });
});
