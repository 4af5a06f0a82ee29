/**
 * The billing port's contract, run against both implementations on a real database
 * (PostgreSQL with DATABASE_URL, else PGlite): per-request hold rows and balance leases must
 * refuse, charge, release and log identically.
 */
import { eq } from "drizzle-orm";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, holds, ledgerEntries, requestLogs } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { metrics } from "../metrics";
import { HoldBilling, LeaseBilling } from "./billing";
import { sweepExpiredHolds } from "./holds";
import { applyLedgerChange, ledgerSum } from "./ledger";
import type { BillingPort, BillingRequest, Hold } from "./port";
import { LeaseManager } from "./text-lease";
import { textSettlementsIdle } from "./text-settle-batch";

let db: DB;
let close: () => Promise<void>;
const managers: LeaseManager[] = [];
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(async () => {
  for (const m of managers) m.stop();
  await textSettlementsIdle();
  await close();
});

async function account(balanceMicro: number, keyLimit?: number) {
  const accountId = newId("account");
  await db.insert(accounts).values({ id: accountId, name: accountId });
  await applyLedgerChange(db, { accountId, deltaMicroUsd: balanceMicro, kind: "admin_credit", idempotencyKey: `seed:${accountId}` });
  const keyId = newId("key");
  await db.insert(apiKeys).values({ id: keyId, accountId, hash: keyId, prefix: "sk-x", last4: "abcd", limitMicroUsd: keyLimit ?? null });
  return { accountId, keyId };
}
const acct = async (id: string) => (await db.select().from(accounts).where(eq(accounts.id, id)))[0]!;
const key = async (id: string) => (await db.select().from(apiKeys).where(eq(apiKeys.id, id)))[0]!;
const logRows = (requestId: string) => db.select().from(requestLogs).where(eq(requestLogs.requestId, requestId));
const charges = (accountId: string) => db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId)).then((r) => r.filter((e) => e.kind === "charge"));

function request(a: { accountId: string; keyId: string | null }): BillingRequest {
  return {
    requestId: newId("request"),
    accountId: a.accountId,
    keyId: a.keyId,
    userId: null,
    source: "api",
    method: "POST",
    route: "/v1/test",
    startedAt: performance.now(),
    settleAfterReply: false,
  };
}

interface Impl {
  name: string;
  port(req: BillingRequest): BillingPort;
  /** Lets whatever the implementation keeps aside (an idle lease) go back to the account. */
  idle(): Promise<void>;
}

function leaseImpl(): Impl {
  const m = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8, share: 0.25 });
  managers.push(m);
  return { name: "leases", port: (req) => new LeaseBilling(db, req, m), idle: () => m.releaseIdle() };
}
const holdImpl = (): Impl => ({ name: "hold rows", port: (req) => new HoldBilling(db, req), idle: async () => undefined });

const log = { model: "m-test", status: 200, settlement: "completed", inputTokens: 10, outputTokens: 20, priceSnapshot: { inputPerMTok: 1, outputPerMTok: 2 } };

describe.each([["hold rows", holdImpl], ["leases", leaseImpl]] as const)("billing port: %s", (_name, make) => {
  it("refuses what the balance cannot cover, saying what is available, and holds nothing", async () => {
    const impl = make();
    const a = await account(5_000);
    const req = request(a);
    const r = await impl.port(req).reserve(6_000);
    expect(r).toEqual({ ok: false, reason: "insufficient_balance", availableMicroUsd: 5_000 });
    await impl.idle();
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 5_000, heldMicroUsd: 0 });
  });

  it("refuses what the key's limit cannot cover", async () => {
    const impl = make();
    const a = await account(100_000, 2_500);
    const first = await impl.port(request(a)).reserve(2_000);
    expect(first.ok).toBe(true);
    expect(await impl.port(request(a)).reserve(1_000)).toEqual({ ok: false, reason: "key_limit_exceeded" });
  });

  it("settles exactly: the charge clamped to the hold, the rest returned, one ledger row, one log row; a retry changes nothing", async () => {
    const impl = make();
    const a = await account(100_000);
    const req = request(a);
    const port = impl.port(req);
    const spendBefore = await spend("m-test");
    const r = await port.reserve(3_000);
    if (!r.ok) throw new Error("refused");
    expect(r.hold.amountMicroUsd).toBe(3_000);
    const s = await port.settle(r.hold, { costMicroUsd: 1_234.2, log });
    expect(s).toEqual({ chargedMicroUsd: 1_235, balanceAfterMicroUsd: 98_765 });
    // Settling the same hold again (a retry) answers the same and charges nothing more.
    expect(await port.settle(r.hold, { costMicroUsd: 2_000, log })).toEqual(s);
    await impl.idle();
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 98_765, heldMicroUsd: 0 });
    expect(await key(a.keyId)).toMatchObject({ spentMicroUsd: 1_235, heldMicroUsd: 0 });
    expect((await charges(a.accountId)).map((e) => [e.deltaMicroUsd, e.balanceAfterMicroUsd, e.idempotencyKey])).toEqual([[-1_235, 98_765, `charge:${req.requestId}`]]);
    const rows = await logRows(req.requestId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ accountId: a.accountId, keyId: a.keyId, route: "/v1/test", model: "m-test", costMicroUsd: 1_235, settlement: "completed", inputTokens: 10, outputTokens: 20 });
    expect(await db.select().from(holds).where(eq(holds.accountId, a.accountId))).toHaveLength(0);
    expect(await ledgerSum(db, a.accountId)).toBe(98_765);
    // /metrics counts what the ledger was charged.
    expect((await spend("m-test")) - spendBefore).toBe(1_235);
  });

  it("never charges more than the hold; a cost that is not a number charges all of it and says so", async () => {
    const impl = make();
    const a = await account(100_000);
    const over = request(a);
    const r1 = await impl.port(over).reserve(1_000);
    if (!r1.ok) throw new Error("refused");
    expect((await impl.port(over).settle(r1.hold, { costMicroUsd: 5_000, log })).chargedMicroUsd).toBe(1_000);
    const nan = request(a);
    const r2 = await impl.port(nan).reserve(700);
    if (!r2.ok) throw new Error("refused");
    expect((await impl.port(nan).settle(r2.hold, { costMicroUsd: Number.NaN, log })).chargedMicroUsd).toBe(700);
    expect((await logRows(nan.requestId))[0]!.usageNote).toContain("whole hold was charged");
    await impl.idle();
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 98_300, heldMicroUsd: 0 });
  });

  it("an upstream failure returns the whole hold and still writes the log row; a refusal writes only its log row", async () => {
    const impl = make();
    const a = await account(10_000);
    const failed = request(a);
    const r = await impl.port(failed).reserve(4_000);
    if (!r.ok) throw new Error("refused");
    expect(await impl.port(failed).settle(r.hold, { costMicroUsd: 0, log: { ...log, status: 502, settlement: "upstream_error" } })).toMatchObject({ chargedMicroUsd: 0 });
    const refused = request(a);
    expect(await impl.port(refused).settle(null, { costMicroUsd: 0, log: { model: null, status: 400, settlement: "invalid" } })).toEqual({ chargedMicroUsd: 0, balanceAfterMicroUsd: null });
    await impl.idle();
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 10_000, heldMicroUsd: 0 });
    expect(await charges(a.accountId)).toHaveLength(0);
    expect((await logRows(failed.requestId)).map((l) => [l.status, l.settlement, l.costMicroUsd])).toEqual([[502, "upstream_error", 0]]);
    expect((await logRows(refused.requestId)).map((l) => [l.status, l.settlement, l.inboundProtocol])).toEqual([[400, "invalid", "openai"]]);
  });

  it("never over-commits: 40 concurrent reservations against a balance for 10, then every charge exact", async () => {
    const impl = make();
    const a = await account(10_000);
    const reqs = Array.from({ length: 40 }, () => request(a));
    const results = await Promise.all(reqs.map((q) => impl.port(q).reserve(1_000)));
    const granted = results.flatMap((r, i) => (r.ok ? [[reqs[i]!, r.hold] as const] : []));
    expect(granted).toHaveLength(10);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.reason === "insufficient_balance")).toBe(true);
    await Promise.all(granted.map(([q, h]) => impl.port(q).settle(h, { costMicroUsd: 600, log })));
    await impl.idle();
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 4_000, heldMicroUsd: 0 });
    expect(await ledgerSum(db, a.accountId)).toBe(4_000);
  });
});

describe("hold rows", () => {
  it("are returned by the sweeper once they expire (a crashed process never settles)", async () => {
    const a = await account(1_000_000);
    const r = await new HoldBilling(db, request(a)).reserve(400_000, { ttlMs: 1 });
    expect(r.ok && (r.hold as Hold).kind).toBe("row");
    await new Promise((done) => setTimeout(done, 5));
    expect(await sweepExpiredHolds(db)).toBeGreaterThanOrEqual(1);
    expect(await acct(a.accountId)).toMatchObject({ balanceMicroUsd: 1_000_000, heldMicroUsd: 0 });
    expect(await db.select().from(holds).where(eq(holds.accountId, a.accountId))).toHaveLength(0);
  });
});

async function spend(model: string): Promise<number> {
  const m = await metrics().spend.get();
  return m.values.find((v) => v.labels.model === model)?.value ?? 0;
}
