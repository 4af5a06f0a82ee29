/**
 * A private, migrated database for tests of the database layer: a fresh PostgreSQL database when
 * DATABASE_URL is set, an in-memory PGlite otherwise. Independent of the process-wide handle.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { DB } from "./client";
import * as schema from "./schema";

const migrationsFolder = path.resolve(import.meta.dirname, "migrations");

export interface TestDb {
  db: DB;
  close: () => Promise<void>;
  mode: "pglite" | "postgres";
  url?: string;
  /** Applies the migrations of `folder` not applied yet (default: every committed one). */
  migrate: (folder?: string) => Promise<void>;
}

/** `opts.migrationsFolder`: start from another folder's migrations (a migration test's older set). */
export async function createTestDb(opts: { migrationsFolder?: string } = {}): Promise<TestDb> {
  const first = opts.migrationsFolder ?? migrationsFolder;
  const base = process.env.DATABASE_URL;
  if (base) {
    const pg = (await import("pg")).default;
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const { migrate } = await import("drizzle-orm/node-postgres/migrator");
    pg.types.setTypeParser(20, (v: string) => Number(v));
    const name = `gw_unit_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 20 });
    pool.on("error", () => {}); // idle clients are terminated when the database is dropped
    const db = drizzle(pool, { schema }) as unknown as DB;
    await migrate(db as never, { migrationsFolder: first });
    return {
      db,
      mode: "postgres",
      migrate: (folder = migrationsFolder) => migrate(db as never, { migrationsFolder: folder }),
      url: url.toString(),
      close: async () => {
        await pool.end();
        const c = new pg.Client({ connectionString: base });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const client = await PGlite.create();
  const db = drizzle(client, { schema }) as unknown as DB;
  await migrate(db as never, { migrationsFolder: first });
  return { db, mode: "pglite", close: () => client.close(), migrate: (folder = migrationsFolder) => migrate(db as never, { migrationsFolder: folder }) };
}
