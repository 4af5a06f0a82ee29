/**
 * Redeem codes below HTTP on PostgreSQL (or PGlite): each code credits once per account under
 * concurrency — a single-use code raced by 30 accounts, a code with 5 uses raced by 30, one
 * account racing itself — and the balance always equals the ledger. Refusals say why.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb, migrate, type DB } from "../db/client";
import { accounts, ledgerEntries, redeemCodes, redemptions, users } from "../db/schema";
import { createUser } from "../lib/auth/users";
import { ledgerSum } from "../lib/billing/ledger";
import { resetEnvCache } from "../lib/env";
import { batchCsv, createBatch, setBatchDisabled } from "../lib/redeem/batches";
import { applyCode, redeemForUser } from "../lib/redeem/redeem";
import { createOrg, UNVERIFIED_ORG_LIMIT } from "../lib/orgs/manage";
import { basePostgresUrl, createDatabase } from "./support/postgres";

let db: DB;
let dataDir: string;
let pgDb: { url: string; drop: () => Promise<void> } | undefined;
const actor = { userId: null, label: "test" };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "redeem-"));
  process.env.DATA_DIR = dataDir;
  const base = basePostgresUrl();
  if (base) {
    pgDb = await createDatabase(base);
    process.env.DATABASE_URL = pgDb.url;
  }
  resetEnvCache();
  db = await getDb();
  await migrate();
});

afterAll(async () => {
  await closeDb();
  await pgDb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

let n = 0;
async function newAccount() {
  const r = await createUser(db, { email: `redeem-${Date.now()}-${n++}@example.test`, via: "test" });
  if (!r.ok) throw new Error("user not created");
  return r.value;
}
async function balance(accountId: string) {
  const [row] = await db.select({ b: accounts.balanceMicroUsd }).from(accounts).where(eq(accounts.id, accountId));
  return row!.b;
}
const batch = (o: Partial<Parameters<typeof createBatch>[1]> = {}) =>
  createBatch(db, { amountMicroUsd: 5_000_000, count: 1, maxRedemptions: 1, oncePerUser: true, expiresAt: null, note: null, actor, ...o });

describe("redeem codes", () => {
  it("a single-use code raced by 30 accounts credits exactly one", async () => {
    const { codes } = await batch({ amountMicroUsd: 7_000_000 });
    const users = await Promise.all(Array.from({ length: 30 }, newAccount));
    const results = await Promise.all(users.map((u) => applyCode(db, { accountId: u.accountId, userId: u.id, code: codes[0]! })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.error.reason === "used_up")).toBe(true);
    const balances = await Promise.all(users.map((u) => balance(u.accountId)));
    expect(balances.filter((b) => b === 7_000_000)).toHaveLength(1);
    expect(balances.filter((b) => b === 0)).toHaveLength(29);
    for (const u of users) expect(await ledgerSum(db, u.accountId)).toBe(await balance(u.accountId));
  });

  it("a code with 5 uses raced by 30 accounts credits exactly 5, each once", async () => {
    const { batch: b, codes } = await batch({ maxRedemptions: 5 });
    const users = await Promise.all(Array.from({ length: 30 }, newAccount));
    const results = await Promise.all(users.map((u) => applyCode(db, { accountId: u.accountId, userId: u.id, code: codes[0]! })));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    const [code] = await db.select().from(redeemCodes).where(eq(redeemCodes.batchId, b.id));
    expect(code!.redemptions).toBe(5);
    expect(await db.select().from(redemptions).where(eq(redemptions.codeId, code!.id))).toHaveLength(5);
    const total = (await Promise.all(users.map((u) => balance(u.accountId)))).reduce((a, x) => a + x, 0);
    expect(total).toBe(25_000_000);
  });

  it("one account racing itself with 20 redemptions of a multi-use code is credited once", async () => {
    const { codes } = await batch({ maxRedemptions: 100 });
    const u = await newAccount();
    const results = await Promise.all(Array.from({ length: 20 }, () => applyCode(db, { accountId: u.accountId, userId: u.id, code: codes[0]! })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.error.reason === "already_redeemed")).toHaveLength(19);
    expect(await balance(u.accountId)).toBe(5_000_000);
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, u.accountId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "redeem", deltaMicroUsd: 5_000_000, actorUserId: u.id });
    expect(rows[0]!.idempotencyKey).toMatch(/^redeem:rcd_/);
  });

  it("refuses unknown, expired and withdrawn codes, and accepts a sloppily typed one", async () => {
    const u = await newAccount();
    expect(await applyCode(db, { accountId: u.accountId, userId: u.id, code: "GW-0000-0000-0000-0000" })).toEqual({ ok: false, error: { reason: "unknown" } });
    expect(await applyCode(db, { accountId: u.accountId, userId: u.id, code: "hello" })).toEqual({ ok: false, error: { reason: "unknown" } });
    const { batch: old, codes: oldCodes } = await batch({ expiresAt: new Date(Date.now() + 60_000) });
    await db.execute(sql`update redeem_batches set expires_at = now() - interval '1 minute' where id = ${old.id}`);
    expect(await applyCode(db, { accountId: u.accountId, userId: u.id, code: oldCodes[0]! })).toMatchObject({ ok: false, error: { reason: "expired" } });
    const { batch: w, codes: wCodes } = await batch();
    await setBatchDisabled(db, w.id, true, actor);
    expect(await applyCode(db, { accountId: u.accountId, userId: u.id, code: wCodes[0]! })).toEqual({ ok: false, error: { reason: "withdrawn" } });
    const { codes } = await batch({ amountMicroUsd: 1_250_000 });
    expect(await applyCode(db, { accountId: u.accountId, userId: u.id, code: ` ${codes[0]!.toLowerCase().replace(/-/g, " ")} ` })).toMatchObject({ ok: true, value: { amountMicroUsd: 1_250_000 } });
    expect(await balance(u.accountId)).toBe(1_250_000);
  });

  it("stores codes hashed and sealed, and exports them again as CSV with their uses", async () => {
    const { batch: b, codes } = await batch({ count: 3, maxRedemptions: 2, note: "conference, 2026" });
    const rows = await db.select().from(redeemCodes).where(eq(redeemCodes.batchId, b.id));
    for (const r of rows) for (const c of codes) expect(`${r.codeHash}${r.codeSealed}`).not.toContain(c.slice(3));
    const u = await newAccount();
    await applyCode(db, { accountId: u.accountId, userId: u.id, code: codes[1]! });
    const csv = (await batchCsv(db, b.id))!;
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("code,amount_usd,max_redemptions,redemptions,expires_at,note,batch_id");
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => l.split(",")[0]).slice(1).sort()).toEqual([...codes].sort());
    expect(lines.find((l) => l.startsWith(codes[1]!))).toContain(`,5.000000,2,1,,"conference, 2026",${b.id}`);
  });
});

describe("batch list", () => {
  it("counts redemptions and credited money per batch", async () => {
    const { listBatches } = await import("../lib/redeem/batches");
    const { batch: b, codes } = await batch({ maxRedemptions: 3, count: 2 });
    const u = await newAccount();
    await applyCode(db, { accountId: u.accountId, userId: u.id, code: codes[0]! });
    const rows = await listBatches(db);
    expect(rows.find((r) => r.id === b.id)).toMatchObject({ redeemed: 1, creditedMicroUsd: 5_000_000, codeCount: 2, maxRedemptions: 3 });
  });
});

describe("once per person (issue 32, item 8)", () => {
  const verify = (id: string) => db.update(users).set({ emailVerified: new Date() }).where(eq(users.id, id));
  const orgsOf = async (u: { id: string; email: string; accountId: string }, n: number) => [
    u.accountId,
    ...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => createOrg(db, u, `Org ${i}`)))).map((o) => o.id),
  ];

  it("one person redeeming a 100-use code through 10 of their organisations at once is credited once", async () => {
    const { codes } = await batch({ maxRedemptions: 100 });
    const u = await newAccount();
    await verify(u.id);
    const orgs = await orgsOf(u, 10);
    const results = await Promise.all(orgs.map((accountId) => applyCode(db, { accountId, userId: u.id, code: codes[0]! })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.error.reason === "redeemed_by_you")).toHaveLength(9);
    const total = (await Promise.all(orgs.map(balance))).reduce((a, x) => a + x, 0);
    expect(total).toBe(5_000_000);
    // Another person still can.
    const other = await newAccount();
    expect(await applyCode(db, { accountId: other.accountId, userId: other.id, code: codes[0]! })).toMatchObject({ ok: true });
  });

  it("a batch the admin made once per organisation lets one person redeem it in each", async () => {
    const { batch: b, codes } = await batch({ maxRedemptions: 100, oncePerUser: false });
    expect(b.oncePerUser).toBe(false);
    const u = await newAccount();
    await verify(u.id);
    const orgs = await orgsOf(u, 3);
    const results = await Promise.all(orgs.map((accountId) => applyCode(db, { accountId, userId: u.id, code: codes[0]! })));
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it(`an unverified account creates at most ${UNVERIFIED_ORG_LIMIT} organisations, in parallel too; verified, more`, async () => {
    const u = await newAccount();
    const tries = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => createOrg(db, u, `Try ${i}`)));
    expect(tries.filter((t) => t.status === "fulfilled")).toHaveLength(UNVERIFIED_ORG_LIMIT);
    const refused = tries.filter((t): t is PromiseRejectedResult => t.status === "rejected").map((t) => t.reason as { code: string; message: string });
    expect(refused).toHaveLength(8 - UNVERIFIED_ORG_LIMIT);
    for (const e of refused) {
      expect(e.code).toBe("forbidden");
      expect(e.message).toMatch(/Verify your email address to create more than 3 organisations/);
    }
    await verify(u.id);
    await expect(createOrg(db, u, "After verifying")).resolves.toMatchObject({ name: "After verifying" });
  });
});

describe("redeem attempts reserved before the code is checked (issue 32, item 13)", () => {
  const guess = () => `GW-${Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 6).toUpperCase().replace(/[ILOU]/g, "A").padEnd(4, "A")).join("-")}`;
  const ip = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`;
  const outcome = (p: Promise<unknown>) => p.then(() => "ok", (e: { code?: string }) => e.code ?? "thrown");

  it("40 parallel wrong guesses by one person: at most 10 are evaluated, the rest refused with 429", async () => {
    const u = await newAccount();
    const from = ip();
    const out = await Promise.all(Array.from({ length: 40 }, () => outcome(redeemForUser(db, u, guess(), from))));
    const evaluated = out.filter((o) => o === "invalid_request").length;
    expect(evaluated).toBe(10);
    expect(out.filter((o) => o === "rate_limited")).toHaveLength(30);
  });

  it("a code that works gives its attempt back: 10 good codes then 10 wrong ones are all evaluated", async () => {
    const u = await newAccount();
    const from = ip();
    const { codes } = await batch({ count: 10 });
    for (const c of codes) expect(await outcome(redeemForUser(db, u, c, from))).toBe("ok");
    const out = await Promise.all(Array.from({ length: 12 }, () => outcome(redeemForUser(db, u, guess(), from))));
    expect(out.filter((o) => o === "invalid_request")).toHaveLength(10);
  });
});
