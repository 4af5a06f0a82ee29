/**
 * For tests below HTTP that talk to Stripe: a data folder and a database of their own
 * (PostgreSQL when available — never the shared one DATABASE_URL names — PGlite otherwise), the
 * fake Stripe API, and stripe-node pointed at it; all torn down after the file's tests. Call it at
 * the top of a test file: its hooks run before the file's own.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll } from "vitest";
import { closeDb, getDb, migrate, type DB } from "../../db/client";
import { stripeConnection } from "../../lib/billing/stripe";
import { resetEnvCache } from "../../lib/env";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe-api";
import { basePostgresUrl, createDatabase } from "./postgres";

export interface FakeStripeDb {
  fake: FakeStripe;
  stripe: Stripe;
  db: DB;
}

export function useFakeStripeDb(name: string): FakeStripeDb {
  const ctx = {} as FakeStripeDb;
  let dataDir = "";
  let pgDb: { url: string; drop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
    process.env.DATA_DIR = dataDir;
    const base = basePostgresUrl();
    if (base) {
      pgDb = await createDatabase(base);
      process.env.DATABASE_URL = pgDb.url;
    }
    process.env.PUBLIC_BASE_URL = "http://gateway.test";
    resetEnvCache();
    ctx.fake = await startFakeStripe();
    ctx.stripe = new Stripe("sk_test_fake", { ...stripeConnection(ctx.fake.url), maxNetworkRetries: 0 });
    ctx.db = await getDb();
    await migrate();
  });
  afterAll(async () => {
    await ctx.fake?.close();
    await closeDb();
    await pgDb?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return ctx;
}
