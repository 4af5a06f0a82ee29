/**
 * The text hold statement and the group-committed settlement on a real database (PGlite, or
 * PostgreSQL with DATABASE_URL): same effects as holds.ts reserve/settleInTx, row for row.
 */
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, holds, ledgerEntries, requestLogs } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { applyLedgerChange, ledgerSum } from "./ledger";
import { reserveHold } from "./holds";
import type { Hold } from "./port";
import { requestLogRow } from "./request-log";
import { settleBatch, SettleBatcher, type BatchSettlement } from "./text-settle-batch";
import { LeaseManager } from "./text-lease";
import { BalanceView } from "./balance-view";

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(() => close());

async function account(balanceMicro: number, keyLimit?: number): Promise<{ accountId: string; keyId: string }> {
  const accountId = newId("account");
  await db.insert(accounts).values({ id: accountId, name: accountId });
  await applyLedgerChange(db, { accountId, deltaMicroUsd: balanceMicro, kind: "admin_credit", idempotencyKey: `seed:${accountId}` });
  const keyId = newId("key");
  await db.insert(apiKeys).values({ id: keyId, accountId, hash: keyId, prefix: "sk-x", last4: "abcd", limitMicroUsd: keyLimit ?? null });
  return { accountId, keyId };
}
const acct = async (id: string) => (await db.select().from(accounts).where(eq(accounts.id, id)))[0]!;
const key = async (id: string) => (await db.select().from(apiKeys).where(eq(apiKeys.id, id)))[0]!;

/** A full row, as the port builds it (request-log.ts). */
const logRow = (requestId: string, a: { accountId: string; keyId: string }) =>
  requestLogRow(
    { requestId, accountId: a.accountId, keyId: a.keyId, userId: null, source: "api", method: "POST", route: "/v1/chat/completions", startedAt: performance.now(), settleAfterReply: false },
    { model: null, status: 200, settlement: "completed" },
  );
const row = (holdId: string, amountMicroUsd: number): Hold => ({ kind: "row", holdId, amountMicroUsd });
const lease = (leaseId: string, amountMicroUsd: number): Hold => ({ kind: "lease", leaseId, amountMicroUsd });

function item(a: { accountId: string; keyId: string }, hold: Hold, cost: number): BatchSettlement {
  const requestId = newId("request");
  return {
    hold,
    costMicroUsd: cost,
    idempotencyKey: `charge:${requestId}`,
    log: logRow(requestId, a),
  };
}

describe("reserveHold", () => {
  it("holds on account and key with a hold row, and refuses what does not fit without side effects", async () => {
    const a = await account(1000, 700);
    const r = await reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 600 });
    expect(r.ok).toBe(true);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(600);
    expect((await key(a.keyId)).heldMicroUsd).toBe(600);
    // The key has 100 left, the account 400.
    expect(await reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 200 })).toEqual({ ok: false, reason: "key_limit_exceeded" });
    expect(await reserveHold(db, { accountId: a.accountId, keyId: null, amountMicroUsd: 500 })).toEqual({ ok: false, reason: "insufficient_balance" });
    expect((await acct(a.accountId)).heldMicroUsd).toBe(600);
    expect((await key(a.keyId)).heldMicroUsd).toBe(600);
    expect(await db.select().from(holds).where(eq(holds.accountId, a.accountId))).toHaveLength(1);
  });

  it("never over-commits under concurrency", async () => {
    const a = await account(10_000);
    const results = await Promise.all(Array.from({ length: 30 }, () => reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 1000 })));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect((await acct(a.accountId)).heldMicroUsd).toBe(10_000);
  });
});

describe("settleBatch", () => {
  it("charges each item clamped to its hold, releases the rest, ledger balances walk in order, one log row each", async () => {
    const a = await account(10_000);
    const b = await account(5_000);
    const h = async (x: { accountId: string; keyId: string }, amt: number) => {
      const r = await reserveHold(db, { accountId: x.accountId, keyId: x.keyId, amountMicroUsd: amt });
      if (!r.ok) throw new Error("hold refused");
      return r.hold;
    };
    const items = [item(a, await h(a, 1000), 300), item(b, await h(b, 800), 900), item(a, await h(a, 500), 0), item(a, await h(a, 700), 100), item(a, row("hold_gone", 50), 50)];
    const res = await settleBatch(db, items);
    expect(res.map((r) => r.chargedMicroUsd)).toEqual([300, 800, 0, 100, 0]);
    expect(res[4]!.settled).toBe(false);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 9_600, heldMicroUsd: 0 });
    expect(await acct(b.accountId)).toMatchObject({ balanceMicroUsd: 4_200, heldMicroUsd: 0 });
    expect(await key(a.keyId)).toMatchObject({ spentMicroUsd: 400, heldMicroUsd: 0 });
    expect(res[0]!.balanceAfterMicroUsd).toBe(9_700);
    expect(res[3]!.balanceAfterMicroUsd).toBe(9_600);
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, a.accountId)).orderBy(ledgerEntries.id);
    expect(rows.filter((r) => r.kind === "charge").map((r) => [r.deltaMicroUsd, r.balanceAfterMicroUsd])).toEqual([[-300, 9_700], [-100, 9_600]]);
    expect(await ledgerSum(db, a.accountId)).toBe(9_600);
    expect(await ledgerSum(db, b.accountId)).toBe(4_200);
    const logs = await db.select().from(requestLogs).where(inArray(requestLogs.requestId, items.map((i) => i.log.requestId)));
    expect(logs.map((l) => l.costMicroUsd).sort((x, y) => x - y)).toEqual([0, 0, 100, 300, 800]);
  });

  it("leased and own holds in one batch: charges leave the lease, a gone lease charges the balance only", async () => {
    const a = await account(100_000);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 4 });
    const g = await m.reserve(a.accountId, a.keyId, 1000); // leases 4000
    if (!g.ok) throw new Error("refused");
    const own = await reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 2000 });
    if (!own.ok) throw new Error("refused");
    const leased = (cost: number, held = 1000) => item(a, lease(g.hold.leaseId, held), cost);
    const gone = item(a, lease("hold_lease_gone", 1000), 700);
    const res = await settleBatch(db, [leased(300), item(a, own.hold, 2500), leased(5000), gone]);
    // Clamped to what each request held; the gone lease still charges (its money went back to held).
    expect(res.map((r) => r.chargedMicroUsd)).toEqual([300, 2000, 1000, 700]);
    expect(res.map((r) => r.balanceAfterMicroUsd)).toEqual([99_700, 97_700, 96_700, 96_000]);
    // Lease row: 4000 − 300 − 1000; held: that lease only (the own hold is gone whole).
    expect((await db.select().from(holds).where(eq(holds.id, g.hold.leaseId)))[0]!.amountMicroUsd).toBe(2_700);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 96_000, heldMicroUsd: 2_700 });
    expect(await key(a.keyId)).toMatchObject({ spentMicroUsd: 4_000, heldMicroUsd: 2_700 });
    expect(await ledgerSum(db, a.accountId)).toBe(96_000);
    m.stop();
  });

  it("writes the request-log row as given, price snapshot included, once per request id", async () => {
    const a = await account(10_000);
    const r = await reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 1000 });
    if (!r.ok) throw new Error("refused");
    const it1 = item(a, r.hold, 120);
    it1.log = {
      ...it1.log,
      userId: null,
      source: "playground",
      model: "m-1",
      upstreamId: "up",
      inboundProtocol: "messages",
      upstreamProtocol: "openai",
      errorCode: null,
      stream: true,
      inputTokens: 12,
      outputTokens: 34,
      settlement: "client_disconnect",
      priceSnapshot: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 },
      latencyMs: 56,
      ttftMs: 7,
    };
    await settleBatch(db, [it1]);
    // A repeat is no second charge and no second log row.
    expect((await settleBatch(db, [it1]))[0]).toMatchObject({ chargedMicroUsd: 0, settled: false, balanceAfterMicroUsd: 9_880 });
    const [row, ...more] = await db.select().from(requestLogs).where(eq(requestLogs.requestId, it1.log.requestId));
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({ ...it1.log, costMicroUsd: 120 });
  });

  it("the batcher answers the balance after a charge at once once it has read one back: the ledger row's own", async () => {
    const a = await account(100_000);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    const g = await m.reserve(a.accountId, a.keyId, 1000);
    if (!g.ok) throw new Error("refused");
    const leased = (cost: number) => item(a, lease(g.hold.leaseId, 1000), cost);
    const batcher = new SettleBatcher(db, new BalanceView());
    const first = batcher.submit(leased(300));
    expect(first).toMatchObject({ chargedMicroUsd: 300, balanceAfterMicroUsd: null });
    expect((await first.result).balanceAfterMicroUsd).toBe(99_700);
    const items = [leased(100), leased(2000), leased(50)];
    const subs = items.map((i) => batcher.submit(i));
    // Clamped to the hold like the statement; balances walk in issue order.
    expect(subs.map((s) => [s.chargedMicroUsd, s.balanceAfterMicroUsd])).toEqual([[100, 99_600], [1000, 98_600], [50, 98_550]]);
    await batcher.idle();
    const rows = await db.select().from(ledgerEntries).where(inArray(ledgerEntries.requestId, items.map((i) => i.log.requestId)));
    expect(items.map((i) => rows.find((r) => r.requestId === i.log.requestId)!.balanceAfterMicroUsd)).toEqual([99_600, 98_600, 98_550]);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 98_550 });
    m.stop();
  });

  /** An account with a lease, settlements drawn on it, and a batcher whose linger outlasts the test. */
  async function lingering() {
    const a = await account(100_000);
    const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    const g = await m.reserve(a.accountId, a.keyId, 1000);
    if (!g.ok) throw new Error("refused");
    const leased = (cost: number) => item(a, lease(g.hold.leaseId, 1000), cost);
    // A linger far longer than the test: only an urgent settlement or idle() can flush.
    const batcher = new SettleBatcher(db, new BalanceView(), 60_000);
    const ledgerOf = async (items: BatchSettlement[]) => db.select().from(ledgerEntries).where(inArray(ledgerEntries.requestId, items.map((i) => i.log.requestId)));
    return { a, m, leased, batcher, ledgerOf };
  }

  it("early settlements linger for company; a settlement somebody waits for, or idle(), flushes them at once (decision 0031)", async () => {
    const { a, m, leased, batcher, ledgerOf } = await lingering();
    // No balance read back yet: the view cannot answer, so even an early one is flushed at once.
    const first = leased(300);
    expect(batcher.submit(first, { early: true }).balanceAfterMicroUsd).toBeNull();
    await batcher.idle();
    expect(await ledgerOf([first])).toHaveLength(1);

    const early = [leased(100), leased(200), leased(50)];
    const subs = early.map((i) => batcher.submit(i, { early: true }));
    expect(subs.map((s) => s.balanceAfterMicroUsd)).toEqual([99_600, 99_400, 99_350]);
    await new Promise((r) => setTimeout(r, 50));
    expect(await ledgerOf(early)).toHaveLength(0); // lingering: nobody waits for them

    const waited = leased(25);
    expect(await batcher.submit(waited).result).toMatchObject({ settled: true, chargedMicroUsd: 25, balanceAfterMicroUsd: 99_325 });
    const rows = await ledgerOf([...early, waited]);
    expect([...early, waited].map((i) => rows.find((r) => r.requestId === i.log.requestId)?.balanceAfterMicroUsd)).toEqual([99_600, 99_400, 99_350, 99_325]);
    expect((await Promise.all(subs.map((s) => s.result))).map((r) => r.chargedMicroUsd)).toEqual([100, 200, 50]);

    const late = [leased(10), leased(20)];
    for (const i of late) batcher.submit(i, { early: true });
    await batcher.idle();
    expect(await ledgerOf(late)).toHaveLength(2);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 99_295 });
    expect(await ledgerSum(db, a.accountId)).toBe(99_295);
    m.stop();
  });

  it("early settlements that arrive during a flush linger as the next batch: the flusher does not run back to back", async () => {
    const { a, m, leased, batcher, ledgerOf } = await lingering();
    await batcher.settle(leased(100)); // the view can answer from now on
    await batcher.idle();
    const waited = batcher.submit(leased(100)); // flushes at once
    const during = [leased(10), leased(20)];
    for (const i of during) expect(batcher.submit(i, { early: true }).balanceAfterMicroUsd).not.toBeNull();
    await waited.result;
    await new Promise((r) => setTimeout(r, 50));
    expect(await ledgerOf(during)).toHaveLength(0); // the next batch, lingering
    // One that somebody waits for, arriving during a flush, is written right after it.
    const next = batcher.submit(leased(5));
    const urgent = leased(7);
    const u = batcher.submit(urgent);
    await Promise.all([next.result, u.result]);
    expect(await ledgerOf([...during, urgent])).toHaveLength(3);
    expect(await ledgerSum(db, a.accountId)).toBe(100_000 - 242);
    m.stop();
  });

  it("with the default linger an early settlement commits within a few milliseconds by itself", async () => {
    const a = await account(100_000);
    const batcher = new SettleBatcher(db, new BalanceView());
    const hold = async () => {
      const r = await reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 1000 });
      if (!r.ok) throw new Error("refused");
      return r.hold;
    };
    await batcher.settle(item(a, await hold(), 100)); // reads the balance back: the view can answer
    const s = batcher.submit(item(a, await hold(), 100), { early: true });
    expect(s.balanceAfterMicroUsd).toBe(99_800);
    expect(await s.result).toMatchObject({ settled: true, balanceAfterMicroUsd: 99_800 });
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 99_800, heldMicroUsd: 0 });
  });

  it("the batcher settles many concurrent requests exactly once each", async () => {
    const a = await account(100_000);
    const batcher = new SettleBatcher(db);
    const holdIds = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const r = await reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 1000 });
        return r.ok ? r.hold : row("", 1000);
      }),
    );
    const res = await Promise.all(holdIds.map((h) => batcher.settle(item(a, h, 250))));
    expect(res.every((r) => r.settled && r.chargedMicroUsd === 250)).toBe(true);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 90_000, heldMicroUsd: 0 });
    expect(await ledgerSum(db, a.accountId)).toBe(90_000);
  });

  it("a cost that is not a number charges the whole hold, and the log row says so", async () => {
    const a = await account(100_000);
    const batcher = new SettleBatcher(db);
    const r = await reserveHold(db, { accountId: a.accountId, keyId: a.keyId, amountMicroUsd: 1000 });
    if (!r.ok) throw new Error("refused");
    const it1 = item(a, r.hold, Number.NaN);
    const res = await batcher.settle(it1);
    expect(res).toMatchObject({ settled: true, chargedMicroUsd: 1000 });
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 99_000, heldMicroUsd: 0 });
    const [log] = await db.select().from(requestLogs).where(eq(requestLogs.requestId, it1.log.requestId));
    expect(log!.usageNote).toContain("whole hold was charged");
  });
});
