/** Balance leases on a real database: holds from memory, charges consume the lease, idle leases go back. */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, holds } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { sweepExpiredHolds } from "./holds";
import { applyLedgerChange, ledgerSum } from "./ledger";
import { requestLogRow } from "./request-log";
import { LeaseManager, type LeaseHold } from "./text-lease";
import { SettleBatcher } from "./text-settle-batch";

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(() => close());

async function account(balanceMicro: number, keyLimit?: number) {
  const accountId = newId("account");
  await db.insert(accounts).values({ id: accountId, name: accountId });
  await applyLedgerChange(db, { accountId, deltaMicroUsd: balanceMicro, kind: "admin_credit", idempotencyKey: `seed:${accountId}` });
  const keyId = newId("key");
  await db.insert(apiKeys).values({ id: keyId, accountId, hash: keyId, prefix: "sk-x", last4: "abcd", limitMicroUsd: keyLimit ?? null });
  return { accountId, keyId };
}
const acct = async (id: string) => (await db.select().from(accounts).where(eq(accounts.id, id)))[0]!;
const leaseRows = (id: string) => db.select().from(holds).where(eq(holds.accountId, id));

/** The leases' queued database work (top-ups), done. */
const queued = (m: LeaseManager) => Promise.all([...(m as unknown as { leases: Map<string, { chain: Promise<unknown> }> }).leases.values()].map((l) => l.chain));

function settle(b: SettleBatcher, a: { accountId: string; keyId: string }, hold: LeaseHold, cost: number) {
  const requestId = newId("request");
  return b.settle({
    hold,
    costMicroUsd: cost,
    idempotencyKey: `charge:${requestId}`,
    log: requestLogRow(
      { requestId, accountId: a.accountId, keyId: a.keyId, userId: null, source: "api", method: "POST", route: "/v1/chat/completions", startedAt: performance.now(), settleAfterReply: false },
      { model: null, status: 200, settlement: "completed" },
    ),
  });
}

describe("LeaseManager", () => {
  it("leases a chunk once, then serves holds from memory; charges consume it; idle leases return", async () => {
    const a = await account(100_000);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    const b = new SettleBatcher(db);
    const g1 = await m.reserve(a.accountId, a.keyId, 1000);
    expect(g1.ok).toBe(true);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(8000);
    const g2 = await m.reserve(a.accountId, a.keyId, 1000);
    expect(g2.ok && g1.ok && g2.hold.leaseId === g1.hold.leaseId).toBe(true);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(8000);
    if (!g1.ok || !g2.ok) return;
    m.released(g1.hold, a.accountId, a.keyId, 300);
    await settle(b, a, g1.hold, 300);
    m.released(g2.hold, a.accountId, a.keyId, 200);
    await settle(b, a, g2.hold, 200);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 99_500, heldMicroUsd: 7_500 });
    expect((await leaseRows(a.accountId))[0]!.amountMicroUsd).toBe(7_500);
    await m.releaseIdle();
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 99_500, heldMicroUsd: 0 });
    expect(await leaseRows(a.accountId)).toHaveLength(0);
    expect(await ledgerSum(db, a.accountId)).toBe(99_500);
    m.stop();
  });

  it("tops a lease up before it runs short: after the first, no request waits for an extension", async () => {
    const a = await account(10_000_000);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    const b = new SettleBatcher(db);
    const inner = m as unknown as { grow: (...args: unknown[]) => Promise<unknown>; extend: (...args: unknown[]) => Promise<unknown> };
    const calls = { grow: 0, extend: 0 };
    for (const k of ["grow", "extend"] as const) {
      const f = inner[k].bind(m);
      inner[k] = (...args: unknown[]) => (calls[k]++, f(...args));
    }
    // Each answer costs most of its hold (a long conversation): the 8-hold chunk lasts ~9 requests.
    for (let i = 0; i < 60; i++) {
      const g = await m.reserve(a.accountId, a.keyId, 1000);
      if (!g.ok) throw new Error("refused");
      m.released(g.hold, a.accountId, a.keyId, 900);
      await settle(b, a, g.hold, 900);
      await queued(m);
    }
    expect(calls.grow).toBe(1); // the first request, which found no lease
    expect(calls.extend).toBeGreaterThanOrEqual(6); // the top-ups, each of a chunk
    await m.releaseIdle();
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 10_000_000 - 60 * 900, heldMicroUsd: 0 });
    expect(await leaseRows(a.accountId)).toHaveLength(0);
    expect(await ledgerSum(db, a.accountId)).toBe(10_000_000 - 60 * 900);
    m.stop();
  });

  it("an account near its end: a top-up cut to the account's share is not retried on every request", async () => {
    const a = await account(10_000);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8, share: 0.25 });
    const inner = m as unknown as { extend: (...args: unknown[]) => Promise<unknown> };
    const extend = inner.extend.bind(m);
    let extensions = 0;
    inner.extend = (...args: unknown[]) => (extensions++, extend(...args));
    const grants = [];
    // The first lease holds 1000 + a quarter of the 9000 left; the next request leaves it under
    // half a chunk, and its top-up gets a quarter of what is left again, far from a chunk.
    for (let i = 0; i < 3; i++) {
      grants.push(await m.reserve(a.accountId, a.keyId, 1000));
      await queued(m);
    }
    expect(grants.every((g) => g.ok)).toBe(true);
    expect(extensions).toBe(2);
    const acc = await acct(a.accountId);
    expect(acc.heldMicroUsd).toBe(3250 + Math.floor((10_000 - 3250) * 0.25));
    expect((await leaseRows(a.accountId)).reduce((s, h) => s + Number(h.amountMicroUsd), 0)).toBe(acc.heldMicroUsd);
    m.stop();
  });

  it("never leases more than the balance: 30 concurrent holds against a balance for 10", async () => {
    const a = await account(10_000);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    const grants = await Promise.all(Array.from({ length: 30 }, () => m.reserve(a.accountId, a.keyId, 1000)));
    expect(grants.filter((g) => g.ok)).toHaveLength(10);
    expect(grants.filter((g) => !g.ok).every((g) => !g.ok && g.reason === "insufficient_balance")).toBe(true);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(10_000);
    m.stop();
  });

  it("enforces the key's limit the same way", async () => {
    const a = await account(100_000, 2_500);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    const grants = await Promise.all(Array.from({ length: 5 }, () => m.reserve(a.accountId, a.keyId, 1000)));
    expect(grants.filter((g) => g.ok)).toHaveLength(2);
    expect(grants.find((g) => !g.ok)).toEqual({ ok: false, reason: "key_limit_exceeded" });
    m.stop();
  });

  it("a lease swept under a request in flight: the charge comes from the balance only, held stays consistent", async () => {
    const a = await account(50_000);
    // A lease that expires at once (a process stalled past its renewals).
    const m = new LeaseManager(db, { ttlMs: 40, idleMs: 60_000, chunkFactor: 4 });
    const b = new SettleBatcher(db);
    const g = await m.reserve(a.accountId, a.keyId, 1000);
    if (!g.ok) throw new Error("refused");
    await new Promise((r) => setTimeout(r, 80));
    expect(await sweepExpiredHolds(db)).toBeGreaterThanOrEqual(1);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(0);
    m.released(g.hold, a.accountId, a.keyId, 400);
    const r = await settle(b, a, g.hold, 400);
    expect(r.chargedMicroUsd).toBe(400);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 49_600, heldMicroUsd: 0 });
    expect(await ledgerSum(db, a.accountId)).toBe(49_600);
    // The next hold starts a new lease.
    const g2 = await m.reserve(a.accountId, a.keyId, 1000);
    expect(g2.ok && g2.hold.leaseId !== g.hold.leaseId).toBe(true);
    m.stop();
  });

  it("a claim that takes a lease's slack back while the lease is being extended does not let the grant go unbacked", async () => {
    const a = await account(10_000);
    const keyB = newId("key");
    await db.insert(apiKeys).values({ id: keyB, accountId: a.accountId, hash: keyB, prefix: "sk-x", last4: "efgh" });
    // No chunks: each lease holds exactly what was asked.
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 0 });
    const g1 = await m.reserve(a.accountId, a.keyId, 1000);
    if (!g1.ok) throw new Error("refused");
    m.released(g1.hold, a.accountId, a.keyId, 0); // key A's lease: 1000, all unused
    // Key A asks for 1500: its extension counts on the 1000 of slack and adds 500. Hold that
    // extension until key B's claim has taken the slack back.
    const inner = m as unknown as { extend: (...args: unknown[]) => Promise<unknown> };
    const extend = inner.extend.bind(m);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let gated = false;
    inner.extend = async (...args: unknown[]) => {
      if ((args[0] as { keyId: string }).keyId === a.keyId && !gated) {
        gated = true;
        await gate;
      }
      return extend(...args);
    };
    const gA = m.reserve(a.accountId, a.keyId, 1500);
    await new Promise((r) => setTimeout(r, 20));
    expect(gated).toBe(true);
    // Key B needs 9500 of the 9000 free: key A's unused 1000 is claimed back, and B gets it.
    const gB = await m.reserve(a.accountId, keyB, 9500);
    expect(gB.ok).toBe(true);
    open();
    // Only 500 is left: A's 1500 cannot be backed, so it is refused (it was granted before).
    expect(await gA).toMatchObject({ ok: false, reason: "insufficient_balance" });
    const acc = await acct(a.accountId);
    expect(acc.heldMicroUsd).toBeLessThanOrEqual(acc.balanceMicroUsd);
    expect((await leaseRows(a.accountId)).reduce((s, h) => s + Number(h.amountMicroUsd), 0)).toBe(acc.heldMicroUsd);
    m.stop();
  });

  it("a lease takes at most a share of what else is spendable, and another key's idle lease is claimed back before a refusal", async () => {
    const a = await account(10_000);
    const keyB = newId("key");
    await db.insert(apiKeys).values({ id: keyB, accountId: a.accountId, hash: keyB, prefix: "sk-x", last4: "efgh" });
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8, share: 0.25 });
    // 1000 needed + a quarter of the 9000 left (not 8000).
    const g1 = await m.reserve(a.accountId, a.keyId, 1000);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(1000 + 2250);
    if (!g1.ok) throw new Error("refused");
    m.released(g1.hold, a.accountId, a.keyId, 0);
    // Key B needs 8000: only 6750 is free, so key A's unused 3250 is claimed back first.
    const g2 = await m.reserve(a.accountId, keyB, 8000);
    expect(g2.ok).toBe(true);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(8000);
    // Beyond the balance it is still a refusal.
    expect(await m.reserve(a.accountId, a.keyId, 2001)).toEqual({ ok: false, reason: "insufficient_balance" });
    m.stop();
  });
});
