/**
 * An administrator's debit (console and `npm run admin -- debit`). It may only take money no
 * request is using: balance − held ≥ amount, where held is every in-flight hold and text lease.
 * Settlements charge up to their holds unconditionally, so a debit that ignored `held` could
 * push the balance below zero once they land. Idle leases give their money back within a
 * moment (and are asked to at once), so a debit that fits the balance but not the spendable
 * part waits briefly for them before it refuses, and then says how much is held.
 */
import { eq } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { accounts } from "../../db/schema";
import { applyLedgerChange, type LedgerChange, type LedgerResult } from "./ledger";
import { formatUsd } from "./money";
import { askLeasesBack } from "./text-lease";

export type DebitResult =
  | LedgerResult
  | { ok: false; reason: "held"; balanceMicroUsd: number; heldMicroUsd: number; message: string };

/** How long a debit waits for idle leases to come back before it refuses. */
const WAIT_MS = 3_000;

/**
 * Before a debit: while the balance covers `amount` but money held by requests or leases is in
 * the way, asks the leases back and waits (at most `waitMs`) for the spendable part to cover it.
 * Run it outside any transaction (the leases must be able to commit their return).
 */
export async function waitForSpendable(db: DB, accountId: string, amount: number, waitMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + waitMs;
  let asked = false;
  for (;;) {
    const [a] = await db.select({ balance: accounts.balanceMicroUsd, held: accounts.heldMicroUsd }).from(accounts).where(eq(accounts.id, accountId));
    if (!a || a.balance - a.held >= amount || a.balance < amount || Date.now() >= deadline) return;
    if (!asked) await askLeasesBack(accountId).catch(() => undefined);
    asked = true;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The debit itself (inside the caller's transaction if any): refused unless balance − held covers it. */
export async function adminDebit(db: DbOrTx, change: Omit<LedgerChange, "floor" | "kind">): Promise<DebitResult> {
  const amount = -change.deltaMicroUsd;
  if (!(amount > 0)) throw new RangeError("a debit takes a positive amount");
  const r = await applyLedgerChange(db, { ...change, kind: "admin_debit", floor: "spendable" });
  if (r.ok || r.reason !== "insufficient_balance") return r;
  const [a] = await db.select({ balance: accounts.balanceMicroUsd, held: accounts.heldMicroUsd }).from(accounts).where(eq(accounts.id, change.accountId));
  if (!a) return { ok: false, reason: "account_not_found" };
  if (a.balance < amount) return r;
  return {
    ok: false,
    reason: "held",
    balanceMicroUsd: a.balance,
    heldMicroUsd: a.held,
    message:
      `the balance is ${formatUsd(a.balance)} USD and ${formatUsd(a.held)} USD of it is held by requests in flight; ` +
      `at most ${formatUsd(Math.max(0, a.balance - a.held))} USD can be debited now`,
  };
}
