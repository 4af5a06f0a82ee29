/**
 * Uploaded files: a row per file (scoped to the organisation, and to the member where roles say
 * so: lib/keys/visibility.ts), the bytes in media storage under `files/<id>`. Ids are ours; an
 * expired or deleted file is gone for every read (a 404), and the sweep frees its bytes.
 */
import type { Readable } from "node:stream";
import { and, asc, desc, eq, gt, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { fileUploads, files } from "../../../db/schema";
import { randomBase62 } from "../../ids";
import { visibleTo, type Viewer } from "../../keys/visibility";
import { logger } from "../../logger";
import { getMediaStorage } from "../../storage/get-media-storage";

export type FileRow = typeof files.$inferSelect;

export const newFileId = () => `file-${randomBase62(24)}`;
export const storageKeyOf = (id: string) => `files/${id}`;

/** A file's owner as stored: who made it (the member scope of later reads is drawn from these). */
export interface FileOwner {
  accountId: string;
  keyId: string | null;
  userId: string | null;
}

/** OpenAI's File object. */
export function renderFile(f: FileRow): Record<string, unknown> {
  return {
    id: f.id,
    object: "file",
    bytes: f.bytes,
    created_at: Math.floor(f.createdAt.getTime() / 1000),
    expires_at: f.expiresAt ? Math.floor(f.expiresAt.getTime() / 1000) : null,
    filename: f.filename,
    purpose: f.purpose,
    status: "processed",
    status_details: null,
  };
}

const live = (now = new Date()) => and(isNull(files.deletedAt), or(isNull(files.expiresAt), gt(files.expiresAt, now)));

/** The viewer's file, or null (another organisation's, another member's when confined, expired, deleted). */
export async function getFile(db: DB, who: Viewer, id: string): Promise<FileRow | null> {
  const [f] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, id), visibleTo(who, files), live()));
  return f ?? null;
}

/** Writes bytes the gateway made (a batch's output) as a file of `owner`. */
export async function writeFile(db: DB, owner: FileOwner, input: { id: string; filename: string; purpose: string; body: AsyncIterable<Uint8Array>; expiresAt: Date | null }): Promise<FileRow> {
  const key = storageKeyOf(input.id);
  const { size } = await getMediaStorage().put(key, input.body, "application/jsonl");
  const [row] = await db
    .insert(files)
    .values({ id: input.id, ...owner, filename: input.filename, purpose: input.purpose, bytes: size, storageKey: key, expiresAt: input.expiresAt })
    .onConflictDoUpdate({ target: files.id, set: { bytes: size } })
    .returning();
  return row!;
}

export interface ListQuery {
  after?: string;
  limit: number;
  order: "asc" | "desc";
  purpose?: string;
}

/** A page of the viewer's files, newest first (or oldest with `order: asc`), after the `after` id. */
export async function listFiles(db: DB, who: Viewer, q: ListQuery): Promise<{ rows: FileRow[]; hasMore: boolean }> {
  const conds: (SQL | undefined)[] = [visibleTo(who, files), live()];
  if (q.purpose) conds.push(eq(files.purpose, q.purpose));
  if (q.after) {
    const cursor = await getFile(db, who, q.after);
    if (cursor) {
      const cmp = q.order === "asc" ? gt : lt;
      conds.push(or(cmp(files.createdAt, cursor.createdAt), and(eq(files.createdAt, cursor.createdAt), cmp(files.id, cursor.id))));
    }
  }
  const dir = q.order === "asc" ? asc : desc;
  const rows = await db
    .select()
    .from(files)
    .where(and(...conds))
    .orderBy(dir(files.createdAt), dir(files.id))
    .limit(q.limit + 1);
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** The file's bytes as a stream, or null when its bytes are gone. */
export async function fileContent(f: FileRow): Promise<Readable | null> {
  return getMediaStorage().read(f.storageKey);
}

/** Marks the file deleted (reads 404 at once) and frees its bytes; false when it was not the viewer's. */
export async function deleteFile(db: DB, who: Viewer, id: string): Promise<boolean> {
  const [f] = await db
    .update(files)
    .set({ deletedAt: new Date() })
    .where(and(eq(files.id, id), visibleTo(who, files), live()))
    .returning();
  if (!f) return false;
  await getMediaStorage().delete(f.storageKey);
  return true;
}

/** The sweep (lib/runtime/jobs.ts, cron.ts): the bytes of expired files are deleted. */
export async function deleteExpiredFiles(db: DB, now = new Date()): Promise<number> {
  const expired = await db
    .update(files)
    .set({ deletedAt: now })
    .where(sql`${files.id} in (select id from files where deleted_at is null and expires_at < ${now.toISOString()}::timestamptz limit 200)`)
    .returning({ key: files.storageKey });
  for (const f of expired) await getMediaStorage().delete(f.key).catch((err) => logger().warn({ err }, "expired file not deleted from storage"));
  // Resumable uploads never finished (gemini.ts): their chunks go too.
  const stale = await db
    .delete(fileUploads)
    .where(sql`${fileUploads.id} in (select id from file_uploads where expires_at < ${now.toISOString()}::timestamptz limit 200)`)
    .returning({ keys: fileUploads.partKeys });
  for (const k of stale.flatMap((u) => u.keys)) await getMediaStorage().delete(k).catch((err) => logger().warn({ err }, "stale upload chunk not deleted from storage"));
  return expired.length;
}

/** Reads a whole (small) file into memory: batch input files, bounded by FILES_MAX_MB. */
export async function readWholeFile(f: FileRow): Promise<Buffer | null> {
  const s = await fileContent(f);
  if (!s) return null;
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  return Buffer.concat(chunks);
}

