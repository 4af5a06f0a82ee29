/** The account's ledger: every balance change, newest first, keyset-paginated, and as CSV. */
import { and, desc, eq, lt } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ledgerEntries } from "../../db/schema";
import { toCsv, usdCell } from "./csv";
import type { LedgerView } from "../views";
export type { LedgerView };

export async function listLedger(db: DbOrTx, accountId: string, opts: { before?: number; limit?: number } = {}) {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
  const rows = await db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.accountId, accountId), opts.before ? lt(ledgerEntries.id, opts.before) : undefined))
    .orderBy(desc(ledgerEntries.id))
    .limit(limit + 1);
  const items: LedgerView[] = rows.slice(0, limit).map((r) => ({
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    kind: r.kind,
    deltaMicroUsd: r.deltaMicroUsd,
    balanceAfterMicroUsd: r.balanceAfterMicroUsd,
    requestId: r.requestId,
    taskId: r.taskId,
    keyId: r.keyId,
    note: r.note,
  }));
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

/** Every row, streamed in pages so a long history does not sit in memory twice. */
export async function ledgerCsv(db: DbOrTx, accountId: string): Promise<string> {
  const rows: (string | number | null)[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await listLedger(db, accountId, { before, limit: 500 });
    for (const r of page.items) {
      rows.push([r.id, r.createdAt, r.kind, usdCell(r.deltaMicroUsd), usdCell(r.balanceAfterMicroUsd), r.requestId, r.taskId, r.keyId, r.note]);
    }
    if (!page.nextCursor) break;
    before = page.nextCursor;
  }
  return toCsv(["id", "created_at", "kind", "amount_usd", "balance_after_usd", "request_id", "task_id", "key_id", "note"], rows);
}
