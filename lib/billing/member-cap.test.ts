/**
 * Per-member monthly caps on a real database (migration 0007): a member's keys cannot hold or
 * spend past the cap under 100 parallel requests, whichever hold path serves them (per-request
 * holds, the one-statement text hold, leases, video's charge without a hold); settlements are
 * never refused and count against the month; a new month starts from zero.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, memberships, users } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { moveMoney } from "./lock-order";
import { reserve, settle } from "./holds";
import { applyLedgerChange } from "./ledger";
import { LeaseManager } from "./text-lease";
import { reserveOnce } from "./text-reserve";

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(() => close());

/** An organisation with a big balance and one member (cap in µUSD) with one key. */
async function member(capMicro: number | null) {
  const accountId = newId("account");
  const userId = newId("user");
  await db.insert(accounts).values({ id: accountId, name: accountId });
  await db.insert(users).values({ id: userId, accountId, email: `${userId}@example.com` });
  await db.insert(memberships).values({ accountId, userId, role: "member", monthlyCapMicroUsd: capMicro });
  await applyLedgerChange(db, { accountId, deltaMicroUsd: 1_000_000_000, kind: "admin_credit", idempotencyKey: `seed:${accountId}` });
  const keyId = newId("key");
  await db.insert(apiKeys).values({ id: keyId, accountId, hash: keyId, prefix: "sk-x", last4: "abcd", createdByUserId: userId });
  return { accountId, userId, keyId };
}

const membership = async (m: { accountId: string; userId: string }) =>
  (await db.select().from(memberships).where(sql`${memberships.accountId} = ${m.accountId} and ${memberships.userId} = ${m.userId}`))[0]!;

describe("member caps", () => {
  it("one-statement text holds: 100 parallel requests never pass the cap", async () => {
    const m = await member(10_000);
    const results = await Promise.all(Array.from({ length: 100 }, () => reserveOnce(db, { accountId: m.accountId, keyId: m.keyId, amountMicroUsd: 1_000 })));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    const refused = results.find((r) => !r.ok)!;
    expect(refused).toEqual({ ok: false, reason: "member_cap_exceeded", capMicroUsd: 10_000 });
    expect((await membership(m)).heldMicroUsd).toBe(10_000);
    // The account and key moved only for the 10 (the refused statements rolled back whole).
    const [a] = await db.select().from(accounts).where(eq(accounts.id, m.accountId));
    expect(a!.heldMicroUsd).toBe(10_000);
  });

  it("per-request holds: the same, and settling charges the month (never refused)", async () => {
    const m = await member(5_000);
    const results = await Promise.all(Array.from({ length: 100 }, () => reserve(db, { accountId: m.accountId, keyId: m.keyId, amountMicroUsd: 1_000 })));
    const ok = results.filter((r) => r.ok) as { ok: true; holdId: string }[];
    expect(ok).toHaveLength(5);
    for (const [i, h] of ok.entries()) await settle(db, { holdId: h.holdId, accountId: m.accountId, keyId: m.keyId, costMicroUsd: 600, idempotencyKey: `charge:cap:${m.keyId}:${i}` });
    expect(await membership(m)).toMatchObject({ heldMicroUsd: 0, monthSpentMicroUsd: 3_000 });
    // 2,000 left under the cap.
    expect((await reserve(db, { accountId: m.accountId, keyId: m.keyId, amountMicroUsd: 2_001 })).ok).toBe(false);
    expect((await reserve(db, { accountId: m.accountId, keyId: m.keyId, amountMicroUsd: 2_000 })).ok).toBe(true);
  });

  it("leases: a chunk the cap refuses falls back to what the request needs; parallel requests stop at the cap", async () => {
    const m = await member(8_000);
    const leases = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    try {
      const results = await Promise.all(Array.from({ length: 100 }, () => leases.reserve(m.accountId, m.keyId, 1_000)));
      expect(results.filter((r) => r.ok)).toHaveLength(8);
      expect(results.find((r) => !r.ok)).toMatchObject({ reason: "member_cap_exceeded", capMicroUsd: 8_000 });
      expect((await membership(m)).heldMicroUsd).toBe(8_000);
    } finally {
      leases.stop();
    }
  });

  it("a charge without a hold (video) is checked too", async () => {
    const m = await member(2_500);
    const charge = () =>
      db
        .transaction(async (tx) => {
          const r = await moveMoney(tx, { accountId: m.accountId, keyId: m.keyId, balance: -1_000, spent: 1_000, require: 1_000 });
          if (!r.ok) throw new Error(r.reason);
          return "ok";
        })
        .catch((e: Error) => e.message);
    const results = await Promise.all(Array.from({ length: 20 }, charge));
    expect(results.filter((r) => r === "ok")).toHaveLength(2);
    expect(results.filter((r) => r === "member_cap_exceeded")).toHaveLength(18);
    expect((await membership(m)).monthSpentMicroUsd).toBe(2_000);
  });

  it("members without a cap are only counted; a new month starts from zero", async () => {
    const m = await member(null);
    const r = await reserve(db, { accountId: m.accountId, keyId: m.keyId, amountMicroUsd: 50_000 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    await settle(db, { holdId: r.holdId, accountId: m.accountId, keyId: m.keyId, costMicroUsd: 40_000, idempotencyKey: `charge:nocap:${m.keyId}` });
    expect(await membership(m)).toMatchObject({ monthSpentMicroUsd: 40_000, heldMicroUsd: 0 });
    // Pretend the spend was last month's, then cap the member below it.
    await db.update(memberships).set({ capMonth: "2000-01", monthlyCapMicroUsd: 10_000 }).where(sql`${memberships.accountId} = ${m.accountId}`);
    expect((await reserve(db, { accountId: m.accountId, keyId: m.keyId, amountMicroUsd: 10_000 })).ok).toBe(true);
    expect((await membership(m)).monthSpentMicroUsd).toBe(0);
  });
});
