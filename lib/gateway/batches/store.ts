/** Batch rows: reads scoped to the viewer (another organisation's id is a 404), their line counts, and cancel. */
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { DB, DbOrTx } from "../../../db/client";
import { batches, batchLines, vendorBatches, type BatchStatus } from "../../../db/schema";
import { randomBase62 } from "../../ids";
import { visibleTo, type Viewer } from "../../keys/visibility";

export type BatchRow = typeof batches.$inferSelect;

export const newBatchId = () => `batch_${randomBase62(24)}`;

/** Where the batch stands: lines by state and what they were charged so far. */
export interface BatchCounts {
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  expired: number;
  running: number;
  costMicroUsd: number;
  /** The hold shares of the lines running now (a cancel lets them finish). */
  inFlightMicroUsd: number;
  inputTokens: number;
  outputTokens: number;
}

export interface BatchView {
  row: BatchRow;
  counts: BatchCounts;
}

export async function countsOf(db: DbOrTx, ids: string[]): Promise<Map<string, BatchCounts>> {
  const out = new Map<string, BatchCounts>();
  if (!ids.length) return out;
  const rows = await db
    .select({ id: batchLines.batchId, status: batchLines.status, n: sql<number>`count(*)::int`, cost: sql<string>`coalesce(sum(${batchLines.costMicroUsd}), 0)`, share: sql<string>`coalesce(sum(${batchLines.shareMicroUsd}), 0)` })
    .from(batchLines)
    .where(inArray(batchLines.batchId, ids))
    .groupBy(batchLines.batchId, batchLines.status);
  for (const id of ids) out.set(id, { total: 0, succeeded: 0, failed: 0, cancelled: 0, expired: 0, running: 0, costMicroUsd: 0, inFlightMicroUsd: 0, inputTokens: 0, outputTokens: 0 });
  for (const r of rows) {
    const c = out.get(r.id)!;
    c.total += r.n;
    c.costMicroUsd += Number(r.cost);
    if (r.status === "succeeded" || r.status === "failed" || r.status === "cancelled" || r.status === "expired") c[r.status] += r.n;
    if (r.status === "running") {
      c.running += r.n;
      c.inFlightMicroUsd += Number(r.share);
    }
  }
  return out;
}

export async function getBatch(db: DB, who: Viewer, id: string): Promise<BatchView | null> {
  const [row] = await db
    .select()
    .from(batches)
    .where(and(eq(batches.id, id), visibleTo(who, batches), isNull(batches.deletedAt)));
  if (!row) return null;
  return { row, counts: (await countsOf(db, [row.id])).get(row.id)! };
}

export async function listBatches(db: DB, who: Viewer, q: { after?: string; limit: number; order: "asc" | "desc"; dialect?: BatchRow["dialect"] }): Promise<{ views: BatchView[]; hasMore: boolean }> {
  const conds: (SQL | undefined)[] = [visibleTo(who, batches), isNull(batches.deletedAt), q.dialect ? eq(batches.dialect, q.dialect) : undefined];
  if (q.after) {
    const [c] = await db
      .select({ createdAt: batches.createdAt, id: batches.id })
      .from(batches)
      .where(and(eq(batches.id, q.after), visibleTo(who, batches)));
    if (c) {
      const cmp = q.order === "asc" ? gt : lt;
      conds.push(or(cmp(batches.createdAt, c.createdAt), and(eq(batches.createdAt, c.createdAt), cmp(batches.id, c.id))));
    }
  }
  const dir = q.order === "asc" ? asc : desc;
  const rows = await db
    .select()
    .from(batches)
    .where(and(...conds))
    .orderBy(dir(batches.createdAt), dir(batches.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const counts = await countsOf(
    db,
    page.map((r) => r.id),
  );
  return { views: page.map((row) => ({ row, counts: counts.get(row.id)! })), hasMore: rows.length > q.limit };
}

/**
 * Cancel: the batch goes `cancelling`, its lines not yet started are cancelled (their shares come
 * back with the rest of the hold when the batch ends); lines in flight finish and are billed,
 * lines in a vendor's batch end when the vendor has cancelled it (decision 0070).
 * Null when the batch is not the viewer's.
 */
export async function cancelBatch(db: DB, who: Viewer, id: string): Promise<BatchRow | null> {
  const [row] = await db
    .select()
    .from(batches)
    .where(and(eq(batches.id, id), visibleTo(who, batches), isNull(batches.deletedAt)));
  if (!row) return null;
  const open: BatchStatus[] = ["validating", "in_progress"];
  if (!open.includes(row.status)) return row;
  await db.transaction(async (tx) => {
    const [moved] = await tx
      .update(batches)
      .set({ status: "cancelling", cancellingAt: new Date() })
      .where(and(eq(batches.id, id), inArray(batches.status, open)))
      .returning({ id: batches.id });
    if (!moved) return;
    // Pending lines, and running ones whose runner's lease ran out (it died): nothing charged for them.
    await tx
      .update(batchLines)
      .set({ status: "cancelled", claim: null, endedAt: new Date() })
      .where(and(eq(batchLines.batchId, id), or(eq(batchLines.status, "pending"), and(eq(batchLines.status, "running"), lt(batchLines.dueAt, new Date())))));
    // Lines in a vendor's batch: the next pass cancels it there (native.ts); what it did not run comes back then.
    await tx.update(vendorBatches).set({ dueAt: new Date() }).where(and(eq(vendorBatches.batchId, id), eq(vendorBatches.status, "submitted")));
  });
  const [after] = await db.select().from(batches).where(eq(batches.id, id));
  return after ?? row;
}

/** Gemini's batches.delete: the batch is cancelled (nothing more is charged for a batch its owner can no longer see), then hidden. */
export async function deleteBatch(db: DB, who: Viewer, id: string): Promise<boolean> {
  if (!(await cancelBatch(db, who, id))) return false;
  await db.update(batches).set({ deletedAt: new Date() }).where(eq(batches.id, id));
  return true;
}

/** The batch's lines in order, a page at a time (a large batch is never read whole). */
export async function* batchLinesInOrder(db: DB, batchId: string): AsyncGenerator<typeof batchLines.$inferSelect> {
  let after = -1;
  for (;;) {
    const page = await db
      .select()
      .from(batchLines)
      .where(and(eq(batchLines.batchId, batchId), gt(batchLines.idx, after)))
      .orderBy(asc(batchLines.idx))
      .limit(500);
    for (const l of page) yield l;
    if (page.length < 500) return;
    after = page[page.length - 1]!.idx;
  }
}
