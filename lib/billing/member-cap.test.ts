/**
 * Per-member monthly caps on a real database (migration 0007): a member's keys cannot hold or
 * spend past the cap under 100 parallel requests, whichever hold path serves them (hold rows,
 * the billing port's, leases, video's charge without a hold); settlements are
 * never refused and count against the month; a new month starts from zero.
 */
import { eq, sql } from "drizzle-orm";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, memberships, users } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { moveMoney } from "./lock-order";
import { HoldBilling } from "./billing";
import { reserveHold } from "./holds";
import { applyLedgerChange } from "./ledger";
import type { Hold } from "./port";
import { LeaseManager } from "./text-lease";
import { textSettlementsIdle } from "./text-settle-batch";

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(async () => {
  await textSettlementsIdle();
  await close();
});

/** The billing port's per-request holds for one request of the member's key. */
const port = (m: { accountId: string; keyId: string }) =>
  new HoldBilling(db, { requestId: newId("request"), accountId: m.accountId, keyId: m.keyId, userId: null, source: "api", method: "POST", route: "/v1/test", startedAt: performance.now(), settleAfterReply: false });
const log = { model: "m", status: 200, settlement: "completed" };

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
  it("one-statement holds: 100 parallel requests never pass the cap", async () => {
    const m = await member(10_000);
    const results = await Promise.all(Array.from({ length: 100 }, () => reserveHold(db, { accountId: m.accountId, keyId: m.keyId, amountMicroUsd: 1_000 })));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    const refused = results.find((r) => !r.ok)!;
    expect(refused).toEqual({ ok: false, reason: "member_cap_exceeded", capMicroUsd: 10_000 });
    expect((await membership(m)).heldMicroUsd).toBe(10_000);
    // The account and key moved only for the 10 (the refused statements rolled back whole).
    const [a] = await db.select().from(accounts).where(eq(accounts.id, m.accountId));
    expect(a!.heldMicroUsd).toBe(10_000);
  });

  it("the billing port: the same, and settling charges the month (never refused)", async () => {
    const m = await member(5_000);
    const results = await Promise.all(Array.from({ length: 100 }, async () => {
      const p = port(m);
      return { p, r: await p.reserve(1_000) };
    }));
    const ok = results.filter((x) => x.r.ok) as { p: HoldBilling; r: { ok: true; hold: Hold } }[];
    expect(ok).toHaveLength(5);
    expect(results.find((x) => !x.r.ok)!.r).toEqual({ ok: false, reason: "member_cap_exceeded", capMicroUsd: 5_000 });
    for (const { p, r } of ok) expect((await p.settle(r.hold, { costMicroUsd: 600, log })).chargedMicroUsd).toBe(600);
    expect(await membership(m)).toMatchObject({ heldMicroUsd: 0, monthSpentMicroUsd: 3_000 });
    // 2,000 left under the cap.
    expect((await port(m).reserve(2_001)).ok).toBe(false);
    expect((await port(m).reserve(2_000)).ok).toBe(true);
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
    const p = port(m);
    const r = await p.reserve(50_000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    await p.settle(r.hold, { costMicroUsd: 40_000, log });
    expect(await membership(m)).toMatchObject({ monthSpentMicroUsd: 40_000, heldMicroUsd: 0 });
    // Pretend the spend was last month's, then cap the member below it.
    await db.update(memberships).set({ capMonth: "2000-01", monthlyCapMicroUsd: 10_000 }).where(sql`${memberships.accountId} = ${m.accountId}`);
    expect((await port(m).reserve(10_000)).ok).toBe(true);
    expect((await membership(m)).monthSpentMicroUsd).toBe(0);
  });
});
