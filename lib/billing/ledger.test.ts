/** The money invariants on a real database (PostgreSQL with DATABASE_URL, else PGlite). */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
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
