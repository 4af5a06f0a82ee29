/**
 * The gateway's PostgreSQL connections carry the safety timeouts (docs/deploy.md, "Database
 * safety"), and the LISTEN connection comes back after the server drops it. PostgreSQL only.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../lib/env";
import { notifyInvalidation, onInvalidation, startInvalidationListener } from "../lib/invalidation";
import { closeDb, getDb } from "./client";
import { createTestDb, type TestDb } from "./testing";

const postgres = !!process.env.DATABASE_URL;
let t: TestDb;
const saved = { ...process.env };

beforeAll(async () => {
  if (!postgres) return;
  t = await createTestDb();
  Object.assign(process.env, {
    DATABASE_URL: t.url,
    DATABASE_LOCK_TIMEOUT_MS: "300",
    DATABASE_STATEMENT_TIMEOUT_MS: "4000",
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "500",
  });
  resetEnvCache();
});
afterAll(async () => {
  if (!postgres) return;
  await closeDb();
  process.env = saved;
  resetEnvCache();
  await t.close();
});

const rows = async (sql: string) => ((await (await getDb()).execute(sql as never)) as unknown as { rows: Record<string, string>[] }).rows;

describe.skipIf(!postgres)("database safety", () => {
  it("sets lock_timeout, statement_timeout and idle_in_transaction_session_timeout on every connection", async () => {
    const [r] = await rows("select current_setting('lock_timeout') as l, current_setting('statement_timeout') as s, current_setting('idle_in_transaction_session_timeout') as i");
    expect(r).toEqual({ l: "300ms", s: "4s", i: "500ms" });
  });

  it("ends a session left inside a transaction, so its locks do not hold up everyone else", async () => {
    const other = new pg.Client({ connectionString: t.url });
    await other.connect();
    try {
      await other.query("create table if not exists safety_probe (id int primary key)");
      await other.query("insert into safety_probe values (1) on conflict do nothing");
      const db = await getDb();
      const stuck = db.transaction(async (tx) => {
        await tx.execute("select * from safety_probe where id = 1 for update" as never);
        await new Promise((r) => setTimeout(r, 1_500)); // a frozen instance between two statements
        await tx.execute("select 1" as never);
      });
      const failed = stuck.then(() => "committed", () => "ended");
      await new Promise((r) => setTimeout(r, 100));
      // Another connection's wait for the row is bounded by lock_timeout, then the row is free
      // once the idle transaction is ended (500 ms).
      const t0 = Date.now();
      await other.query("set lock_timeout = 300");
      await expect(other.query("update safety_probe set id = 1 where id = 1")).rejects.toMatchObject({ code: "55P03" });
      expect(Date.now() - t0).toBeLessThan(1_000);
      await new Promise((r) => setTimeout(r, 700));
      await other.query("update safety_probe set id = 1 where id = 1");
      expect(await failed).toBe("ended");
    } finally {
      await other.end();
    }
  });

  it("listens again after the server terminates the LISTEN connection, and a revocation arrives within a second", async () => {
    await startInvalidationListener();
    const seen: string[] = [];
    const off = onInvalidation((m) => m.kind === "keys" && seen.push(m.hashes?.[0] ?? "all"));
    const admin = new pg.Client({ connectionString: t.url });
    await admin.connect();
    try {
      for (let round = 0; round < 3; round++) {
        const killed = await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'gateway-listen' and datname = current_database()");
        expect(killed.rowCount).toBe(1);
        // Another instance revokes a key right after: sent on its own connection, as it would be.
        await new Promise((r) => setTimeout(r, 300));
        const hash = `revoked-${round}`;
        const t0 = Date.now();
        await admin.query("select pg_notify('gateway_invalidate', $1)", [JSON.stringify({ kind: "keys", hashes: [hash] })]);
        while (!seen.includes(hash) && Date.now() - t0 < 1_000) await new Promise((r) => setTimeout(r, 10));
        expect(seen, `round ${round}`).toContain(hash);
      }
      // This process's own notifications still go out too.
      await notifyInvalidation({ kind: "keys", hashes: ["own"] });
      expect(seen).toContain("own");
    } finally {
      off();
      await admin.end();
    }
  });
});
