/**
 * Budgets on a real database (migration 0013, decision 0032): a hard limit is never overshot by
 * 100 parallel requests on any hold path (hold rows, the billing port, leases, video's charge
 * without a hold); settlements count against the window and raise the 80 % / 100 % / soft alerts
 * once; a new window starts from zero; a refused request alerts once; a budget made mid-window
 * starts from what the window has already spent.
 */
import { and, eq, sql } from "drizzle-orm";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, alerts, apiKeys, budgets, memberships, requestLogs, users } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { budgetSchema, deleteBudget, listBudgets, setBudget } from "../orgs/budgets";
import { HoldBilling } from "./billing";
import { reserveHold } from "./holds";
import { applyLedgerChange } from "./ledger";
import { moveMoney } from "./lock-order";
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

const port = (keyId: string, accountId: string) =>
  new HoldBilling(db, { requestId: newId("request"), accountId, keyId, userId: null, source: "api", method: "POST", route: "/v1/test", startedAt: performance.now(), settleAfterReply: false });
const log = { model: "m", status: 200, settlement: "completed" };

/** An organisation with a big balance, its owner, a member, and a key of each. */
async function org(timeZone = "UTC") {
  const accountId = newId("account");
  const owner = { id: newId("user"), email: "" };
  owner.email = `${owner.id}@example.com`;
  const memberId = newId("user");
  await db.insert(accounts).values({ id: accountId, name: accountId, timeZone });
  await db.insert(users).values([
    { id: owner.id, accountId, email: owner.email },
    { id: memberId, accountId, email: `${memberId}@example.com` },
  ]);
  await db.insert(memberships).values([
    { accountId, userId: owner.id, role: "owner" },
    { accountId, userId: memberId, role: "member" },
  ]);
  await applyLedgerChange(db, { accountId, deltaMicroUsd: 1_000_000_000, kind: "admin_credit", idempotencyKey: `seed:${accountId}` });
  const key = async (userId: string) => {
    const id = newId("key");
    await db.insert(apiKeys).values({ id, accountId, hash: id, prefix: "sk-x", last4: "abcd", name: `key of ${userId}`, createdByUserId: userId });
    return id;
  };
  const actor = { id: owner.id, email: owner.email, accountId, orgRole: "owner" as const };
  return { accountId, actor, ownerId: owner.id, memberId, ownerKey: await key(owner.id), memberKey: await key(memberId) };
}

const budget = (o: Awaited<ReturnType<typeof org>>, b: Record<string, unknown>) => setBudget(db, o.actor, budgetSchema.parse(b));
const row = async (id: string) => (await db.select().from(budgets).where(eq(budgets.id, id)))[0]!;
const alertsOf = async (accountId: string) => (await db.select().from(alerts).where(eq(alerts.accountId, accountId))).map((a) => a.kind).sort();

describe("budgets", () => {
  it("an organisation's budget: 100 parallel holds over two members' keys stop at the limit", async () => {
    const o = await org();
    const b = await budget(o, { scope: "organisation", period: "month", limitUsd: "0.01" });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => reserveHold(db, { accountId: o.accountId, keyId: i % 2 ? o.ownerKey : o.memberKey, amountMicroUsd: 1_000 })));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect(results.find((r) => !r.ok)).toEqual({ ok: false, reason: "budget_exceeded", budget: { id: b.id, scope: "organisation", period: "month", limitMicroUsd: 10_000, window: b.window, leftMicroUsd: 0 } });
    expect(await row(b.id)).toMatchObject({ heldMicroUsd: 10_000, spentMicroUsd: 0 });
    // The refused statements rolled back whole: the account holds only the ten.
    expect((await db.select().from(accounts).where(eq(accounts.id, o.accountId)))[0]!.heldMicroUsd).toBe(10_000);
  });

  it("the billing port: settlements count, alert at 80 % and 100 % once, and the refusal alerts once", async () => {
    const o = await org();
    const b = await budget(o, { scope: "member", userId: o.memberId, period: "day", limitUsd: "0.005", softLimitUsd: "0.002" });
    const holds = await Promise.all(Array.from({ length: 100 }, async () => {
      const p = port(o.memberKey, o.accountId);
      return { p, r: await p.reserve(1_000) };
    }));
    const ok = holds.filter((x) => x.r.ok) as { p: HoldBilling; r: { ok: true; hold: Hold } }[];
    expect(ok).toHaveLength(5);
    // The owner's key is not the member's: not covered.
    expect((await port(o.ownerKey, o.accountId).reserve(1_000)).ok).toBe(true);
    for (const { p, r } of ok) await p.settle(r.hold, { costMicroUsd: 1_000, log });
    expect(await row(b.id)).toMatchObject({ heldMicroUsd: 0, spentMicroUsd: 5_000 });
    await expect.poll(() => alertsOf(o.accountId)).toEqual(["budget_100", "budget_80", "budget_soft"]);
    // Refused again and again: still one budget_100 alert for this window.
    for (let i = 0; i < 3; i++) expect((await port(o.memberKey, o.accountId).reserve(1)).ok).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(await alertsOf(o.accountId)).toEqual(["budget_100", "budget_80", "budget_soft"]);
    const [a100] = await db.select().from(alerts).where(and(eq(alerts.accountId, o.accountId), eq(alerts.kind, "budget_100")));
    expect(a100!.dedupeKey).toBe(`budget_100:${b.id}:${b.window}`);
    // The first refusal (while the five were held) raised it, before any settlement reached 100 %.
    expect(a100!.data).toMatchObject({ scope: "member", period: "day", user_id: o.memberId, limit_micro_usd: 5_000, refused: true });
  });

  it("a refusal before 100 % is spent alerts once (holds are worst cases)", async () => {
    const o = await org();
    const b = await budget(o, { scope: "key", keyId: o.ownerKey, period: "week", limitUsd: "0.003" });
    expect((await port(o.ownerKey, o.accountId).reserve(2_000)).ok).toBe(true);
    const refused = await port(o.ownerKey, o.accountId).reserve(2_000);
    expect(refused).toMatchObject({ ok: false, reason: "budget_exceeded", budget: { scope: "key", period: "week", leftMicroUsd: 1_000 } });
    expect(b.window).toMatch(/^\d{4}-W\d{2}$/);
    await expect.poll(() => alertsOf(o.accountId)).toEqual(["budget_100"]);
  });

  it("leases: the chunk a budget refuses falls back to what the request needs; parallel requests stop at the limit", async () => {
    const o = await org();
    const b = await budget(o, { scope: "key", keyId: o.memberKey, period: "month", limitUsd: "0.008" });
    const leases = new LeaseManager(db, { ttlMs: 60_000, idleMs: 60_000, chunkFactor: 8 });
    try {
      const results = await Promise.all(Array.from({ length: 100 }, () => leases.reserve(o.accountId, o.memberKey, 1_000)));
      expect(results.filter((r) => r.ok)).toHaveLength(8);
      expect(results.find((r) => !r.ok)).toMatchObject({ reason: "budget_exceeded", budget: { id: b.id } });
      expect((await row(b.id)).heldMicroUsd).toBe(8_000);
    } finally {
      leases.stop();
    }
  });

  it("a charge without a hold (video) is checked too", async () => {
    const o = await org();
    await budget(o, { scope: "organisation", period: "day", limitUsd: "0.0025" });
    const charge = () =>
      db
        .transaction(async (tx) => {
          const r = await moveMoney(tx, { accountId: o.accountId, keyId: o.memberKey, balance: -1_000, spent: 1_000, require: 1_000 });
          if (!r.ok) throw new Error(r.reason);
          return "ok";
        })
        .catch((e: Error) => e.message);
    const results = await Promise.all(Array.from({ length: 20 }, charge));
    expect(results.filter((r) => r === "ok")).toHaveLength(2);
    expect(results.filter((r) => r === "budget_exceeded")).toHaveLength(18);
  });

  it("a soft limit alone only alerts; a new window starts from zero", async () => {
    const o = await org("Asia/Tokyo");
    const b = await budget(o, { scope: "organisation", period: "month", softLimitUsd: "0.001" });
    const p = port(o.ownerKey, o.accountId);
    const r = await p.reserve(50_000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    await p.settle(r.hold, { costMicroUsd: 40_000, log });
    expect(await alertsOf(o.accountId)).toEqual(["budget_soft"]);
    // Pretend the spend was last month's, then give the budget a hard limit below it.
    await db.update(budgets).set({ window: "2000-01", limitMicroUsd: 10_000 }).where(eq(budgets.id, b.id));
    expect((await listBudgets(db, o.accountId))[0]).toMatchObject({ spentMicroUsd: 0, window: b.window });
    expect((await port(o.ownerKey, o.accountId).reserve(10_000)).ok).toBe(true);
    expect(await row(b.id)).toMatchObject({ window: b.window, spentMicroUsd: 0, heldMicroUsd: 10_000 });
    // The window is the organisation's month, in its time zone.
    const tokyo = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo", year: "numeric", month: "2-digit" }).format(new Date()).slice(0, 7);
    expect(b.window).toBe(tokyo);
  });

  it("a budget made mid-window starts from the window's spend; deleting the last one turns the trigger's work off", async () => {
    const o = await org();
    await db.insert(requestLogs).values([
      { requestId: newId("request"), accountId: o.accountId, keyId: o.memberKey, method: "POST", route: "/v1/chat/completions", status: 200, costMicroUsd: 7_000 },
      { requestId: newId("request"), accountId: o.accountId, keyId: o.ownerKey, method: "POST", route: "/v1/chat/completions", status: 200, costMicroUsd: 1_000 },
      { requestId: newId("request"), accountId: o.accountId, keyId: o.memberKey, method: "POST", route: "/v1/chat/completions", status: 200, costMicroUsd: 99_000, createdAt: new Date(Date.now() - 40 * 86_400_000) },
    ]);
    const member = await budget(o, { scope: "member", userId: o.memberId, period: "month", limitUsd: "0.01" });
    const whole = await budget(o, { scope: "organisation", period: "month", limitUsd: "1" });
    expect(member).toMatchObject({ spentMicroUsd: 7_000, target: `${o.memberId}@example.com` });
    expect(whole.spentMicroUsd).toBe(8_000);
    expect((await port(o.memberKey, o.accountId).reserve(3_001)).ok).toBe(false);
    // Changing the limit keeps the figures.
    expect(await budget(o, { scope: "member", userId: o.memberId, period: "month", limitUsd: "0.02" })).toMatchObject({ id: member.id, spentMicroUsd: 7_000, limitMicroUsd: 20_000 });
    expect((await db.select().from(accounts).where(eq(accounts.id, o.accountId)))[0]!.hasBudgets).toBe(true);
    await deleteBudget(db, o.actor, member.id);
    await deleteBudget(db, o.actor, whole.id);
    expect((await db.select().from(accounts).where(eq(accounts.id, o.accountId)))[0]!.hasBudgets).toBe(false);
    await expect(deleteBudget(db, o.actor, whole.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("scoped to the organisation: another organisation's member or key is refused", async () => {
    const a = await org();
    const b = await org();
    await expect(budget(a, { scope: "member", userId: b.memberId, period: "day", limitUsd: "1" })).rejects.toMatchObject({ code: "not_found" });
    await expect(budget(a, { scope: "key", keyId: b.ownerKey, period: "day", limitUsd: "1" })).rejects.toMatchObject({ code: "not_found" });
    const mine = await budget(a, { scope: "organisation", period: "day", limitUsd: "1" });
    await expect(deleteBudget(db, b.actor, mine.id)).rejects.toMatchObject({ code: "not_found" });
    expect(() => budgetSchema.parse({ scope: "organisation", period: "day" })).toThrow(/Set a limit/);
    expect(() => budgetSchema.parse({ scope: "organisation", period: "day", limitUsd: "1", softLimitUsd: "2" })).toThrow(/lower/);
  });
});
