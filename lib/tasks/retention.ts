/**
 * Media retention: 14 days after completion a task's files are deleted from storage and the
 * task is marked, so the content endpoint and the signed URLs answer 410 media_expired.
 */
import { and, eq, isNotNull, isNull, lt } from "drizzle-orm";
import type { DB } from "../../db/client";
import { tasks } from "../../db/schema";
import { logger } from "../logger";
import type { MediaStorage } from "../storage/media-storage";

export async function deleteTaskMedia(db: DB, storage: MediaStorage, taskId: string, keys: string[], now = new Date()): Promise<void> {
  for (const k of keys) await storage.delete(k);
  await db.update(tasks).set({ mediaDeletedAt: now }).where(and(eq(tasks.id, taskId), isNull(tasks.mediaDeletedAt)));
}

/** Deletes the media of every task past its expires_at; returns how many tasks were handled. */
export async function runRetention(db: DB, storage: MediaStorage, now = new Date(), batch = 200): Promise<number> {
  const due = await db
    .select({ id: tasks.id, keys: tasks.mediaKeys })
    .from(tasks)
    .where(and(eq(tasks.status, "completed"), isNull(tasks.mediaDeletedAt), isNotNull(tasks.expiresAt), lt(tasks.expiresAt, now)))
    .limit(batch);
  for (const t of due) {
    try {
      await deleteTaskMedia(db, storage, t.id, t.keys ?? [], now);
    } catch (err) {
      logger().warn({ err, taskId: t.id }, "media retention: delete failed; will retry");
    }
  }
  return due.length;
}
