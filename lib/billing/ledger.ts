/**
 * Balance changes. Each one is a single transaction: the conditional balance UPDATE and its
 * ledger row commit together, and the ledger's unique idempotency key turns a replay into a
 * no-op, so the balance always equals the sum of the ledger.
 */
import { and, eq, sql } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, ledgerEntries, type LedgerKind } from "../../db/schema";
import { balanceView } from "./balance-view";
import { accountCovers } from "./lock-order";

export interface LedgerChange {
  accountId: string;
  /** Positive credits, negative debits (micro-USD). */
  deltaMicroUsd: number;
  kind: LedgerKind;
  idempotencyKey: string;
  requestId?: string;
  taskId?: string;
  keyId?: string;
  actorUserId?: string;
  note?: string;
  /**
   * How far a debit may go: "spendable" keeps balance ≥ held (requests, tasks), "zero" keeps
   * balance ≥ 0 (admin debit), "any" lets it go negative (Stripe refunds and disputes).
   */
  floor?: "spendable" | "zero" | "any";
}

export type LedgerResult =
  | { ok: true; applied: true; balanceAfterMicroUsd: number; entryId: number }
  | { ok: true; applied: false; reason: "duplicate" }
  | { ok: false; reason: "insufficient_balance" | "account_not_found" };

class Duplicate extends Error {}

/** Applies one change in its own transaction (or inside `tx` when the caller has one). */
export async function applyLedgerChange(db: DbOrTx, change: LedgerChange): Promise<LedgerResult> {
  try {
    return await (db as DB).transaction((tx) => applyInTx(tx, change));
  } catch (err) {
    if (err instanceof Duplicate) return { ok: true, applied: false, reason: "duplicate" };
    throw err;
  }
}

async function applyInTx(tx: DbOrTx, c: LedgerChange): Promise<LedgerResult> {
  if (!Number.isSafeInteger(c.deltaMicroUsd)) throw new RangeError("delta must be an integer micro-USD amount");
  balanceView().forget(c.accountId);
  const floor = c.floor ?? (c.deltaMicroUsd < 0 ? "spendable" : "any");
  const cond =
    c.deltaMicroUsd >= 0 || floor === "any"
      ? eq(accounts.id, c.accountId)
      : floor === "zero"
        ? and(eq(accounts.id, c.accountId), sql`${accounts.balanceMicroUsd} + ${c.deltaMicroUsd} >= 0`)
        : and(eq(accounts.id, c.accountId), accountCovers(-c.deltaMicroUsd));
  const updated = await tx
    .update(accounts)
    .set({ balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${c.deltaMicroUsd}` })
    .where(cond)
    .returning({ balance: accounts.balanceMicroUsd });
  if (updated.length === 0) {
    const exists = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, c.accountId));
    // A replayed change is reported as a duplicate even when it would not fit any more.
    const dup = await tx
      .select({ id: ledgerEntries.id })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.idempotencyKey, c.idempotencyKey));
    if (dup.length) throw new Duplicate();
    return { ok: false, reason: exists.length ? "insufficient_balance" : "account_not_found" };
  }
  const balanceAfter = updated[0]!.balance;
  const entryId = await recordLedgerRow(tx, c, balanceAfter);
  // Already applied by someone else: throwing rolls back our balance update.
  if (entryId === null) throw new Duplicate();
  return { ok: true, applied: true, balanceAfterMicroUsd: balanceAfter, entryId };
}

/**
 * The ledger row of a balance change the caller has just made in `tx` (moveMoney, lock-order.ts);
 * null when its idempotency key was already used (the caller must roll back).
 */
export async function recordLedgerRow(tx: DbOrTx, c: LedgerChange, balanceAfter: number): Promise<number | null> {
  const inserted = await tx
    .insert(ledgerEntries)
    .values({
      accountId: c.accountId,
      deltaMicroUsd: c.deltaMicroUsd,
      balanceAfterMicroUsd: balanceAfter,
      kind: c.kind,
      idempotencyKey: c.idempotencyKey,
      requestId: c.requestId,
      taskId: c.taskId,
      keyId: c.keyId,
      actorUserId: c.actorUserId,
      note: c.note,
    })
    .onConflictDoNothing({ target: ledgerEntries.idempotencyKey })
    .returning({ id: ledgerEntries.id });
  return inserted[0]?.id ?? null;
}

/** Balance and the ledger sum, for invariants checks in tests and the admin CLI. */
export async function ledgerSum(db: DbOrTx, accountId: string): Promise<number> {
  const rows = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.deltaMicroUsd}), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.accountId, accountId));
  return Number(rows[0]?.sum ?? 0);
}
