/**
 * Key verification against a real database through the process-wide handle: lookup by hash,
 * the order of states (revoked, expired, account disabled), a roll's grace period, and cache
 * invalidation on revocation.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb, migrate, type DB } from "../../db/client";
import { accounts, apiKeys } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { resetEnvCache } from "../env";
import { newId } from "../ids";
import { generateKey } from "./generate";
import { announceNewKey, createKey, revokeKey } from "./manage";
import { verifyKey } from "./verify";

let db: DB;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  // Point the process-wide handle at a private database: a fresh PostgreSQL one, or PGlite in a temp folder.
  const t = await createTestDb();
  if (t.url) {
    process.env.DATABASE_URL = t.url;
  } else {
    await t.close();
    delete process.env.DATABASE_URL;
    process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "gw-verify-"));
  }
  resetEnvCache();
  await migrate();
  db = await getDb();
  cleanup = async () => {
    await closeDb();
    if (t.url) await t.close();
  };
});
afterAll(() => cleanup());

async function account(disabled = false) {
  const id = newId("account");
  await db.insert(accounts).values({ id, name: id, disabled });
  return id;
}

describe("verifyKey", () => {
  it("finds a key by its hash and builds the principal", async () => {
    const acct = await account();
    const k = await createKey(db, { accountId: acct, allowedModels: ["demo-chat"], limitMicroUsd: 5, rpm: 7 });
    const r = await verifyKey(k.key);
    expect(r).toEqual({
      ok: true,
      value: expect.objectContaining({ accountId: acct, keyId: k.id, keyAllowedModels: ["demo-chat"], keyLimitMicroUsd: 5, keyRpm: 7, source: "api" }),
    });
  });

  it("refuses malformed and unknown keys without confusing them", async () => {
    expect(await verifyKey(undefined)).toEqual({ ok: false, error: "malformed" });
    expect(await verifyKey("sk-")).toEqual({ ok: false, error: "malformed" });
    expect(await verifyKey(generateKey().key)).toEqual({ ok: false, error: "unknown" });
  });

  it("checks revoked before expired before account disabled", async () => {
    const acct = await account(true);
    const k = await createKey(db, { accountId: acct, expiresAt: new Date(Date.now() + 60_000) });
    expect(await verifyKey(k.key)).toEqual({ ok: false, error: "account_disabled" });
    expect(await verifyKey(k.key, Date.now() + 120_000)).toEqual({ ok: false, error: "expired" });
    await revokeKey(db, k.id);
    expect(await verifyKey(k.key)).toEqual({ ok: false, error: "revoked" });
  });

  it("caches an unknown key for a moment (no query) and forgets it when a key is announced", async () => {
    const g = generateKey();
    expect(await verifyKey(g.key)).toEqual({ ok: false, error: "unknown" });
    // Inserted behind the cache's back: still unknown from the negative cache...
    const acct = await account();
    await db.insert(apiKeys).values({ id: newId("key"), accountId: acct, name: "late", hash: g.hash, prefix: g.prefix, last4: g.last4 });
    expect(await verifyKey(g.key)).toEqual({ ok: false, error: "unknown" });
    // ...and answered from the caches only when asked to.
    expect(await verifyKey(generateKey().key, Date.now(), { cachedOnly: true })).toEqual({ ok: false, error: "not_cached" });
    // Creating a key announces it, which empties the negative cache everywhere.
    await announceNewKey(g);
    expect((await verifyKey(g.key)).ok).toBe(true);
    // And after the TTL even without an announcement.
    const h = generateKey();
    expect((await verifyKey(h.key)).ok).toBe(false);
    await db.insert(apiKeys).values({ id: newId("key"), accountId: acct, name: "later", hash: h.hash, prefix: h.prefix, last4: h.last4 });
    expect((await verifyKey(h.key, Date.now() + 11_000)).ok).toBe(true);
  });

  it("stops a cached key on the very next call after revocation", async () => {
    const acct = await account();
    const k = await createKey(db, { accountId: acct });
    expect((await verifyKey(k.key)).ok).toBe(true); // now cached
    expect(await revokeKey(db, k.key)).toBe(k.id); // by the full key
    expect(await verifyKey(k.key)).toEqual({ ok: false, error: "revoked" });
  });

  it("honours a rolled key's previous secret until its grace period ends", async () => {
    const acct = await account();
    const k = await createKey(db, { accountId: acct });
    const next = generateKey();
    await db
      .update(apiKeys)
      .set({ previousHash: (await db.select().from(apiKeys).where(eq(apiKeys.id, k.id)))[0]!.hash, previousExpiresAt: new Date(Date.now() + 60_000), hash: next.hash })
      .where(eq(apiKeys.id, k.id));
    expect((await verifyKey(next.key)).ok).toBe(true);
    expect((await verifyKey(k.key)).ok).toBe(true);
    expect(await verifyKey(k.key, Date.now() + 120_000)).toEqual({ ok: false, error: "expired" });
  });
});
