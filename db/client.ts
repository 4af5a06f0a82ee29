/**
 * One database handle per process: PGlite (embedded, files under DATA_DIR) when DATABASE_URL is
 * unset, node-postgres otherwise. The same drizzle query code runs on both.
 *
 * Kept on globalThis because the custom server and Next's bundled route handlers load separate
 * copies of this module in one process; two PGlite instances on one folder would corrupt it.
 */
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { sql, type ExtractTablesWithRelations } from "drizzle-orm";
import * as schema from "./schema";
import { env } from "../lib/env";
import { logger } from "../lib/logger";
import { processSingleton } from "../lib/process-singleton";

export type Schema = typeof schema;
export type DB = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Query functions take either: a plain handle or an open transaction. */
export type DbOrTx = DB | Tx;

interface DbState {
  db: DB;
  mode: "pglite" | "postgres";
  close: () => Promise<void>;
  /** Runs `fn` on a dedicated connection holding a session advisory lock (PG) or directly (PGlite). */
  withLock: <T>(lockId: number, fn: (db: DB) => Promise<T>) => Promise<T>;
  /** Raw LISTEN support for cross-process cache invalidation; null on PGlite (one process). */
  listen: ((channel: string, onMessage: (payload: string) => void, onReconnect?: () => void) => Promise<() => Promise<void>>) | null;
}

const slot = processSingleton("gateway.db", () => ({ current: undefined as Promise<DbState> | undefined }));

export function migrationsFolder(): string {
  // Works from the repo root (server, CLI, tests) and from Next's server bundle (cwd is the root).
  return path.resolve(process.cwd(), "db/migrations");
}

async function openPglite(): Promise<DbState> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const dir = path.join(env().DATA_DIR, "pglite");
  fs.mkdirSync(dir, { recursive: true });
  const client = await PGlite.create(dir);
  const db = drizzle(client, { schema }) as unknown as DB;
  return {
    db,
    mode: "pglite",
    close: () => client.close(),
    withLock: (_id, fn) => fn(db),
    listen: null,
  };
}

/**
 * What every gateway connection sets first (docs/deploy.md, "Database safety"): a statement
 * waiting on a lock fails after DATABASE_LOCK_TIMEOUT_MS instead of queueing behind a stuck
 * holder, a runaway statement is cancelled, and a session left inside a transaction (a process
 * frozen or partitioned between two statements) is ended by the server, which rolls it back and
 * frees its locks. Sent as one SET statement, not as startup parameters: PgBouncer refuses
 * parameters it does not know. Behind a transaction-mode pooler a SET lands on whichever server
 * connection ran it, so there set them on the role as well (ALTER ROLE … SET).
 */
export function sessionSettingsSql(): string | null {
  const e = env();
  const parts = [
    ["lock_timeout", e.DATABASE_LOCK_TIMEOUT_MS],
    ["statement_timeout", e.DATABASE_STATEMENT_TIMEOUT_MS],
    ["idle_in_transaction_session_timeout", e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS],
  ].filter(([, ms]) => Number(ms) > 0);
  return parts.length ? parts.map(([k, ms]) => `set ${k} = ${Number(ms)}`).join("; ") : null;
}

async function openPostgres(url: string): Promise<DbState> {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  // int8 (bigint) → number: every amount we store is far below 2^53 (see schema.ts).
  pg.types.setTypeParser(20, (v: string) => Number(v));
  // LISTEN and the migrations' session lock need a session of their own: not through a
  // transaction-mode pooler (DATABASE_DIRECT_URL; Neon and Vercel call it the unpooled URL).
  const direct = env().DATABASE_DIRECT_URL ?? url;
  const settings = sessionSettingsSql();
  const pool = new pg.Pool({
    connectionString: url,
    max: env().DATABASE_POOL_SIZE,
    // Awaited before the new connection serves its first query.
    onConnect: async (c) => {
      // Also while checked out: a session the server ends between two statements of a
      // transaction (idle_in_transaction_session_timeout) must fail that transaction, not the process.
      c.on("error", () => {});
      if (settings) await c.query(settings).catch((err: unknown) => logger().warn({ err }, "database session settings refused"));
    },
  });
  pool.on("error", () => {}); // idle client errors surface on the next query instead
  const db = drizzle(pool, { schema }) as unknown as DB;
  const listeners = new Set<() => Promise<void>>();
  return {
    db,
    mode: "postgres",
    close: async () => {
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
    withLock: async (lockId, fn) => {
      // Migrations may wait for another instance's and may run long: no timeouts on this session.
      const client = new pg.Client({ connectionString: direct, application_name: "gateway-migrate" });
      client.on("error", () => {});
      await client.connect();
      try {
        await client.query("select pg_advisory_lock($1)", [lockId]);
        return await fn(drizzle(client, { schema }) as unknown as DB);
      } finally {
        await client.end().catch(() => {}); // ending the session releases its lock
      }
    },
    listen: async (channel, onMessage, onReconnect) => {
      const stop = await listenForever(pg, direct, channel, onMessage, onReconnect);
      listeners.add(stop);
      return stop;
    },
  };
}

/**
 * LISTEN on a connection of its own that comes back when the server drops it (restart,
 * failover, pg_terminate_backend, a pooler or network idle cut): reconnects at once, then backs
 * off up to 5 s while the server is away. Notifications sent while it was down are lost, so
 * `onReconnect` runs once it listens again (the caller drops its caches). The first connection's
 * failure is thrown: a start without invalidation would serve revoked keys.
 */
async function listenForever(
  pg: typeof import("pg").default,
  url: string,
  channel: string,
  onMessage: (payload: string) => void,
  onReconnect?: () => void,
): Promise<() => Promise<void>> {
  let current: import("pg").Client | null = null;
  let stopped = false;
  const connect = async (first: boolean): Promise<void> => {
    for (let attempt = 0; !stopped; attempt++) {
      const c = new pg.Client({ connectionString: url, application_name: "gateway-listen" });
      c.on("error", () => {}); // the "end" below handles a dropped connection
      try {
        await c.connect();
        await c.query(`listen ${c.escapeIdentifier(channel)}`);
      } catch (err) {
        await c.end().catch(() => {});
        if (first) throw err;
        await sleep(Math.min(5_000, 50 * 2 ** attempt));
        continue;
      }
      c.on("notification", (n) => {
        if (n.channel === channel) onMessage(n.payload ?? "");
      });
      c.once("end", () => {
        if (stopped || current !== c) return;
        current = null;
        logger().warn("the LISTEN connection was dropped; reconnecting");
        void connect(false);
      });
      if (stopped) return void (await c.end().catch(() => {}));
      current = c;
      if (!first) {
        logger().info("listening for invalidations again");
        onReconnect?.();
      }
      return;
    }
  };
  await connect(true);
  return async () => {
    stopped = true;
    await current?.end().catch(() => {});
  };
}

function state(): Promise<DbState> {
  const g = slot();
  if (!g.current) {
    const url = env().DATABASE_URL;
    g.current = (url ? openPostgres(url) : openPglite()).catch((err) => {
      g.current = undefined;
      throw err;
    });
  }
  return g.current;
}

/** The process-wide database handle. */
export async function getDb(): Promise<DB> {
  return (await state()).db;
}

export async function dbState(): Promise<DbState> {
  return state();
}

export async function closeDb(): Promise<void> {
  const g = slot();
  const s = g.current;
  g.current = undefined;
  if (s) await (await s).close();
}

/**
 * Runs one statement straight on the handle's driver (node-postgres pool or PGlite), as a named
 * prepared statement where the driver has them: no query-builder work and no re-parse of a
 * large statement per call. For hot-path statements written as SQL text; everything else goes
 * through drizzle.
 */
export async function preparedQuery<T>(db: DB, name: string, text: string, values: unknown[]): Promise<T[]> {
  const client = (db as unknown as { $client: RawClient }).$client;
  if ("waitReady" in client) return (await client.query<T>(text, values)).rows;
  return (await client.query<T>({ name, text, values })).rows;
}

type RawClient =
  | { waitReady: unknown; query<T>(text: string, values: unknown[]): Promise<{ rows: T[] }> }
  | { query<T>(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: T[] }> };

const MIGRATION_LOCK_ID = 7_246_113;

/** Applies committed migrations; several instances starting at once take turns on a lock. */
export async function migrate(): Promise<void> {
  const s = await state();
  await s.withLock(MIGRATION_LOCK_ID, async (db) => {
    if (s.mode === "postgres") {
      const { migrate: run } = await import("drizzle-orm/node-postgres/migrator");
      await run(db as never, { migrationsFolder: migrationsFolder() });
    } else {
      const { migrate: run } = await import("drizzle-orm/pglite/migrator");
      await run(db as never, { migrationsFolder: migrationsFolder() });
    }
  });
}

/** True when the database answers and holds every committed migration (for GET /readyz). */
export async function migrationsApplied(): Promise<boolean> {
  const fs = await import("node:fs");
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8")) as { entries: unknown[] };
  const db = await getDb();
  const r = (await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)) as unknown as { rows: { n: number }[] };
  return Number(r.rows[0]?.n ?? 0) >= journal.entries.length;
}
