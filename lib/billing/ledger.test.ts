/** The money invariants on a real database (PostgreSQL with DATABASE_URL, else PGlite). */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, holds, ledgerEntries } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { reserve, settle, release, sweepExpiredHolds } from "./holds";
import { applyLedgerChange, ledgerSum } from "./ledger";

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(() => close());

async function account(balanceMicro = 0): Promise<string> {
  const id = newId("account");
  await db.insert(accounts).values({ id, name: id });
  if (balanceMicro) {
    const r = await applyLedgerChange(db, { accountId: id, deltaMicroUsd: balanceMicro, kind: "admin_credit", idempotencyKey: `seed:${id}` });
    expect(r.ok).toBe(true);
  }
  return id;
}
const balance = async (id: string) => (await db.select().from(accounts).where(eq(accounts.id, id)))[0]!;

describe("applyLedgerChange", () => {
  it("writes the balance and one ledger row together, and a replay changes nothing", async () => {
    const id = await account();
    const first = await applyLedgerChange(db, { accountId: id, deltaMicroUsd: 5_000_000, kind: "topup", idempotencyKey: `k:${id}` });
    expect(first).toMatchObject({ ok: true, applied: true, balanceAfterMicroUsd: 5_000_000 });
    const again = await applyLedgerChange(db, { accountId: id, deltaMicroUsd: 5_000_000, kind: "topup", idempotencyKey: `k:${id}` });
    expect(again).toEqual({ ok: true, applied: false, reason: "duplicate" });
    expect((await balance(id)).balanceMicroUsd).toBe(5_000_000);
    expect(await ledgerSum(db, id)).toBe(5_000_000);
  });

  it("applies one of many concurrent replays of the same change", async () => {
    const id = await account();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        applyLedgerChange(db, { accountId: id, deltaMicroUsd: 1_000_000, kind: "topup", idempotencyKey: `same:${id}` }),
      ),
    );
    expect(results.filter((r) => r.ok && r.applied)).toHaveLength(1);
    expect((await balance(id)).balanceMicroUsd).toBe(1_000_000);
    expect(await ledgerSum(db, id)).toBe(1_000_000);
  });

  it("refuses a debit past the floor and records nothing", async () => {
    const id = await account(1_000_000);
    expect(await applyLedgerChange(db, { accountId: id, deltaMicroUsd: -2_000_000, kind: "admin_debit", idempotencyKey: `d:${id}`, floor: "zero" })).toEqual({
      ok: false,
      reason: "insufficient_balance",
    });
    const neg = await applyLedgerChange(db, { accountId: id, deltaMicroUsd: -2_000_000, kind: "stripe_refund", idempotencyKey: `r:${id}`, floor: "any" });
    expect(neg).toMatchObject({ ok: true, balanceAfterMicroUsd: -1_000_000 });
    expect(await ledgerSum(db, id)).toBe(-1_000_000);
  });

  it("reports an unknown account", async () => {
    expect(await applyLedgerChange(db, { accountId: "acct_nope", deltaMicroUsd: -1, kind: "charge", idempotencyKey: "x:nope" })).toEqual({
      ok: false,
      reason: "account_not_found",
    });
  });
});

describe("reserve / settle", () => {
  it("never lets 100 concurrent holds spend more than the balance", async () => {
    const id = await account(10_000_000); // covers exactly ten holds of 1 USD
    const results = await Promise.all(Array.from({ length: 100 }, () => reserve(db, { accountId: id, amountMicroUsd: 1_000_000 })));
    const granted = results.filter((r) => r.ok);
    expect(granted).toHaveLength(10);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.reason === "insufficient_balance")).toBe(true);
    await Promise.all(
      granted.map((g, i) =>
        g.ok ? settle(db, { holdId: g.holdId, accountId: id, costMicroUsd: 600_000, idempotencyKey: `charge:${id}:${i}` }) : null,
      ),
    );
    const a = await balance(id);
    expect(a.balanceMicroUsd).toBe(4_000_000);
    expect(a.heldMicroUsd).toBe(0);
    expect(await ledgerSum(db, id)).toBe(a.balanceMicroUsd);
  });

  it("charges at most the hold, settles once, and releases untouched holds", async () => {
    const id = await account(1_000_000);
    const h = await reserve(db, { accountId: id, amountMicroUsd: 300_000 });
    if (!h.ok) throw new Error("hold refused");
    const s1 = await settle(db, { holdId: h.holdId, accountId: id, costMicroUsd: 999_999, idempotencyKey: `c1:${id}` });
    expect(s1).toMatchObject({ chargedMicroUsd: 300_000, balanceAfterMicroUsd: 700_000, settled: true });
    const s2 = await settle(db, { holdId: h.holdId, accountId: id, costMicroUsd: 100, idempotencyKey: `c2:${id}` });
    expect(s2.settled).toBe(false);
    const h2 = await reserve(db, { accountId: id, amountMicroUsd: 700_000 });
    if (!h2.ok) throw new Error("hold refused");
    await release(db, h2.holdId, id);
    const a = await balance(id);
    expect([a.balanceMicroUsd, a.heldMicroUsd]).toEqual([700_000, 0]);
    expect(await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, id))).toHaveLength(2);
  });

  it("enforces a key's spend limit like the balance", async () => {
    const id = await account(10_000_000);
    const keyId = newId("key");
    await db.insert(apiKeys).values({ id: keyId, accountId: id, hash: `h-${keyId}`, prefix: "sk-xxxxxx", last4: "xxxx", limitMicroUsd: 1_500_000 });
    const a = await reserve(db, { accountId: id, keyId, amountMicroUsd: 1_000_000 });
    const b = await reserve(db, { accountId: id, keyId, amountMicroUsd: 1_000_000 });
    expect(a.ok).toBe(true);
    expect(b).toEqual({ ok: false, reason: "key_limit_exceeded" });
    expect((await balance(id)).heldMicroUsd).toBe(1_000_000); // the refused hold left nothing behind
    if (a.ok) await settle(db, { holdId: a.holdId, accountId: id, keyId, costMicroUsd: 1_000_000, idempotencyKey: `k:${keyId}` });
    const [k] = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect([k!.spentMicroUsd, k!.heldMicroUsd]).toEqual([1_000_000, 0]);
    expect((await reserve(db, { accountId: id, keyId, amountMicroUsd: 600_000 })).ok).toBe(false);
  });

  it("returns holds left behind by a crash once they expire", async () => {
    const id = await account(1_000_000);
    const h = await reserve(db, { accountId: id, amountMicroUsd: 400_000, ttlMs: 1 });
    expect(h.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(await sweepExpiredHolds(db)).toBeGreaterThanOrEqual(1);
    expect((await balance(id)).heldMicroUsd).toBe(0);
    expect(await db.select().from(holds).where(eq(holds.accountId, id))).toHaveLength(0);
  });
});
