/**
 * A batch's money (docs/batches.md, decision 0053): ONE hold row for the whole batch, the sum of
 * every line's worst case at the batch price. Lines that have run take their shares out of that
 * hold together, in one transaction with their lines' ends (the caller's): what each cost is
 * charged (a ledger row per line, the key's spend), the rest of each share is free again at once
 * (a failed line's whole share: its refund), and each line's request-log row is written. The end
 * of the batch returns what is left (cancelled and expired lines' shares) with `returnHold`.
 * Several lines per statement: every line of a batch locks the same account and hold rows, so
 * one transaction per line would queue them behind each other.
 */
import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { holds, ledgerEntries, requestLogs } from "../../db/schema";
import { balanceView } from "./balance-view";
import { moveMoney } from "./lock-order";
import type { RequestLogRow } from "./request-log";

export interface LineCharge {
  /** The line's part of the hold. */
  shareMicroUsd: number;
  /** What the line cost at the batch price (clamped to its share; not finite = the whole share). */
  costMicroUsd: number;
  /** Unique per line: a second charge of the line is refused (the transaction rolls back). */
  idempotencyKey: string;
  note: string;
  log: RequestLogRow;
}

/** What each line is charged: its cost, whole micro-dollars, never more than its share. */
export function lineCharge(shareMicroUsd: number, costMicroUsd: number): number {
  const share = Math.max(0, Math.ceil(shareMicroUsd));
  return Number.isFinite(costMicroUsd) ? Math.min(share, Math.max(0, Math.ceil(costMicroUsd))) : share;
}

/** Inside the caller's transaction (which has just claimed these lines' ends), lines of one batch. */
export async function settleBatchLines(tx: DbOrTx, batch: { accountId: string; keyId: string | null; holdId: string }, lines: LineCharge[]): Promise<void> {
  if (!lines.length) return;
  const charges = lines.map((l) => lineCharge(l.shareMicroUsd, l.costMicroUsd));
  const shares = lines.reduce((a, l) => a + Math.max(0, Math.ceil(l.shareMicroUsd)), 0);
  const cost = charges.reduce((a, c) => a + c, 0);
  // The shares leave the hold row; if the row is gone (swept past its expiry) nothing is held for them.
  const shrunk = await tx
    .update(holds)
    .set({ amountMicroUsd: sql`greatest(0, ${holds.amountMicroUsd} - ${shares})` })
    .where(eq(holds.id, batch.holdId))
    .returning({ id: holds.id });
  const moved = await moveMoney(tx, { accountId: batch.accountId, keyId: batch.keyId, balance: -cost, held: shrunk.length ? -shares : 0, spent: cost });
  if (!moved.ok) throw new Error(`batch hold ${batch.holdId}: the account is gone`);
  // Each line's ledger row, with the balance after it as if they were charged one by one.
  let after = moved.balanceAfterMicroUsd + cost;
  const entries = lines.flatMap((l, i) => {
    if (charges[i]! <= 0) return [];
    after -= charges[i]!;
    return [{ accountId: batch.accountId, deltaMicroUsd: -charges[i]!, balanceAfterMicroUsd: after, kind: "charge" as const, idempotencyKey: l.idempotencyKey, requestId: l.log.requestId, keyId: batch.keyId, note: l.note }];
  });
  if (entries.length) {
    const inserted = await tx.insert(ledgerEntries).values(entries).onConflictDoNothing({ target: ledgerEntries.idempotencyKey }).returning({ id: ledgerEntries.id });
    if (inserted.length !== entries.length) throw new Error(`batch hold ${batch.holdId}: a line charged twice`); // rolls them all back
  }
  await tx
    .insert(requestLogs)
    .values(lines.map((l, i) => ({ ...l.log, costMicroUsd: charges[i]! })))
    .onConflictDoNothing();
  balanceView().forget(batch.accountId);
}
