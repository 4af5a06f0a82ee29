/**
 * Reserve before, settle after: a hold moves the worst-case cost of a request into `held`
 * (account and key) with one conditional UPDATE each, so concurrent requests can never spend
 * more than the balance or the key's limit. Settling charges the real cost (never more than
 * the hold) with its ledger row and returns the rest, in one transaction.
 */
import { eq, lt } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, holds, ledgerEntries } from "../../db/schema";
import { newId } from "../ids";
import { balanceView } from "./balance-view";
import { moveMoney } from "./lock-order";
import { memberCapError, memberCapRefusal } from "./member-cap";

export interface ReserveInput {
  accountId: string;
  keyId?: string | null;
  amountMicroUsd: number;
  /** How long before a sweeper may return the hold (a crashed process never settles). */
  ttlMs?: number;
}

export type ReserveResult =
  | { ok: true; holdId: string; amountMicroUsd: number }
  | { ok: false; reason: "insufficient_balance" | "key_limit_exceeded" }
  /** The key's member would pass their monthly cap in the organisation (member-cap.ts). */
  | { ok: false; reason: "member_cap_exceeded"; capMicroUsd: number };

class Rejected extends Error {
  constructor(readonly reason: "insufficient_balance" | "key_limit_exceeded") {
    super(reason);
  }
}

const DEFAULT_HOLD_TTL_MS = 15 * 60_000;

export async function reserve(db: DB, input: ReserveInput): Promise<ReserveResult> {
  const amount = Math.max(0, Math.ceil(input.amountMicroUsd));
  const holdId = newId("hold");
  try {
    await db.transaction(async (tx) => {
      const moved = await moveMoney(tx, { accountId: input.accountId, keyId: input.keyId, held: amount, require: amount });
      if (!moved.ok) throw moved.reason === "member_cap_exceeded" ? memberCapError(moved.capMicroUsd) : new Rejected(moved.reason);
      await tx.insert(holds).values({
        id: holdId,
        accountId: input.accountId,
        keyId: input.keyId ?? null,
        amountMicroUsd: amount,
        expiresAt: new Date(Date.now() + (input.ttlMs ?? DEFAULT_HOLD_TTL_MS)),
      });
    });
  } catch (err) {
    if (err instanceof Rejected) return { ok: false, reason: err.reason };
    const cap = memberCapRefusal(err);
    if (cap !== null) return { ok: false, reason: "member_cap_exceeded", capMicroUsd: cap };
    throw err;
  }
  return { ok: true, holdId, amountMicroUsd: amount };
}

export interface SettleInput {
  holdId: string;
  accountId: string;
  keyId?: string | null;
  /** The real cost; clamped to the hold, which was a true upper bound. */
  costMicroUsd: number;
  /** Ledger idempotency key of the charge, e.g. `charge:req_…`. */
  idempotencyKey: string;
  requestId?: string;
  taskId?: string;
  note?: string;
}

export interface SettleResult {
  chargedMicroUsd: number;
  balanceAfterMicroUsd: number;
  /** False when the hold was already settled or swept (nothing done twice). */
  settled: boolean;
}

/**
 * Settles a hold inside `tx` (callers add their request-log row to the same transaction).
 * Idempotent: a hold that is gone is not settled again.
 */
export async function settleInTx(tx: DbOrTx, input: SettleInput): Promise<SettleResult> {
  const removed = await tx
    .delete(holds)
    .where(eq(holds.id, input.holdId))
    .returning({ amount: holds.amountMicroUsd });
  if (removed.length === 0) {
    const [row] = await tx
      .select({ balance: accounts.balanceMicroUsd })
      .from(accounts)
      .where(eq(accounts.id, input.accountId));
    return { chargedMicroUsd: 0, balanceAfterMicroUsd: row?.balance ?? 0, settled: false };
  }
  const held = removed[0]!.amount;
  // A cost that is not a number means the work was done at an unknown price: the hold is charged.
  const cost = Number.isFinite(input.costMicroUsd) ? Math.min(Math.max(0, Math.ceil(input.costMicroUsd)), held) : held;
  if (cost > 0) balanceView().forget(input.accountId);
  const moved = await moveMoney(tx, { accountId: input.accountId, keyId: input.keyId, balance: -cost, held: -held, spent: cost });
  const balanceAfter = moved.ok ? moved.balanceAfterMicroUsd : 0;
  if (cost > 0) {
    await tx.insert(ledgerEntries).values({
      accountId: input.accountId,
      deltaMicroUsd: -cost,
      balanceAfterMicroUsd: balanceAfter,
      kind: "charge",
      idempotencyKey: input.idempotencyKey,
      requestId: input.requestId,
      taskId: input.taskId,
      keyId: input.keyId ?? undefined,
      note: input.note,
    });
  }
  return { chargedMicroUsd: cost, balanceAfterMicroUsd: balanceAfter, settled: true };
}

export async function settle(db: DB, input: SettleInput): Promise<SettleResult> {
  return db.transaction((tx) => settleInTx(tx, input));
}

/** Returns a hold untouched (upstream failed before any output). */
export async function release(db: DB, holdId: string, accountId: string, keyId?: string | null) {
  return settle(db, { holdId, accountId, keyId, costMicroUsd: 0, idempotencyKey: `release:${holdId}` });
}

/** Returns every expired hold to its account; run periodically by the worker. */
export async function sweepExpiredHolds(db: DB, now = new Date()): Promise<number> {
  const expired = await db.select({ id: holds.id, accountId: holds.accountId, keyId: holds.keyId }).from(holds).where(lt(holds.expiresAt, now)).limit(500);
  for (const h of expired) await release(db, h.id, h.accountId, h.keyId);
  return expired.length;
}
