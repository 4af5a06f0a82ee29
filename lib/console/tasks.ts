/** The account's asynchronous tasks (video), newest first. */
import { and, desc, eq, isNotNull, lt } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ledgerEntries, tasks } from "../../db/schema";
import { AppError } from "./errors";
import { madeByMember } from "../keys/visibility";
import type { TaskView } from "../views";

/** `memberId`: only that member's tasks (their session's or their keys'). */
export async function listTasks(db: DbOrTx, accountId: string, opts: { before?: string; limit?: number; memberId?: string } = {}): Promise<{ items: TaskView[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(opts.limit ?? 20, 1), 100);
  const before = opts.before ? new Date(opts.before) : undefined;
  const rows = await db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.accountId, accountId),
        before && !Number.isNaN(before.getTime()) ? lt(tasks.createdAt, before) : undefined,
        opts.memberId ? madeByMember(accountId, opts.memberId, tasks.keyId, tasks.userId) : undefined,
      ),
    )
    .orderBy(desc(tasks.createdAt))
    .limit(limit + 1);
  const items = rows.slice(0, limit).map((t) => ({
    id: t.id,
    model: t.model,
    status: t.status,
    progress: t.progress,
    seconds: t.seconds,
    size: t.size,
    source: t.source,
    keyId: t.keyId,
    costMicroUsd: t.costMicroUsd,
    errorMessage: t.errorMessage,
    createdAt: t.createdAt.toISOString(),
    completedAt: t.completedAt?.toISOString() ?? null,
    expiresAt: t.expiresAt?.toISOString() ?? null,
  }));
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.createdAt : null };
}

/**
 * The request that submitted a task, so a task id can open in the request inspector (which shows
 * the task). Tasks keep no request id; the submission's charge names both. 404 for another
 * account's (or member's) task, and for a free task, which has no charge.
 */
export async function taskRequestId(db: DbOrTx, accountId: string, taskId: string, memberId?: string): Promise<{ requestId: string }> {
  const [row] = await db
    .select({ requestId: ledgerEntries.requestId })
    .from(ledgerEntries)
    .innerJoin(tasks, eq(tasks.id, ledgerEntries.taskId))
    .where(and(eq(tasks.id, taskId), eq(tasks.accountId, accountId), eq(ledgerEntries.accountId, accountId), isNotNull(ledgerEntries.requestId), memberId ? madeByMember(accountId, memberId, tasks.keyId, tasks.userId) : undefined))
    .limit(1);
  if (!row?.requestId) throw new AppError("not_found", "No request is on record for this task.");
  return { requestId: row.requestId };
}
