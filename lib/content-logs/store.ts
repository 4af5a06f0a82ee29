/**
 * Content logs at rest (docs/content-logs.md, decision 0059): a request's canonical prompt and
 * reassembled answer, redacted and then sealed with lib/crypto.ts (the stored Responses'
 * encryption), one row per request, scoped to the organisation. Written after the reply; read by
 * the request inspector and the JSONL export; deleted after the organisation's retention.
 */
import { and, asc, eq, gt, gte, lt, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { contentLogs } from "../../db/schema";
import { afterReply } from "../after-reply";
import { decryptSecret, encryptSecret } from "../crypto";
import { madeByMember } from "../keys/visibility";
import { logger } from "../logger";
import type { ContentLogPolicy } from "../values";
import type { ContentLogView, ContentRecord } from "../views";
import { redactDeep, redactor } from "./redact";

/** Who made the request the log belongs to. */
export interface ContentLogTarget {
  accountId: string;
  keyId: string | null;
  userId: string | null;
  requestId: string;
  policy: ContentLogPolicy;
}

/** A record past this many bytes (as JSON) has its long strings cut (and says so). */
export const MAX_RECORD_BYTES = 2 * 1024 * 1024;
const CUT_TO = 16 * 1024;

function clip<T>(v: T): T {
  if (typeof v === "string") return (v.length > CUT_TO ? `${v.slice(0, CUT_TO)}…[cut ${v.length - CUT_TO} characters]` : v) as T;
  if (Array.isArray(v)) return v.map(clip) as T;
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clip(x)])) as T;
  return v;
}

/** Redacts, seals and inserts one record (a second write for the same request is ignored). */
export async function writeContentLog(db: DB, t: ContentLogTarget, meta: { model: string | null; stream: boolean }, record: ContentRecord): Promise<void> {
  let clean = redactDeep(record, redactor(t.policy));
  let json = JSON.stringify(clean);
  if (json.length > MAX_RECORD_BYTES) {
    clean = Object.assign(clip(clean), { truncated: true });
    json = JSON.stringify(clean);
  }
  // Checked again as it is written: a request still in flight when logging was switched off (or
  // its key narrowed) leaves nothing behind.
  await db.execute(sql`
    insert into content_logs (account_id, request_id, key_id, user_id, model, stream, bytes, sealed)
    select ${t.accountId}, ${t.requestId}, ${t.keyId}, ${t.userId}, ${meta.model}, ${meta.stream}, ${json.length}, ${encryptSecret(json)}
    where exists (select 1 from accounts where id = ${t.accountId} and content_log_mode = 'full')
      and not exists (select 1 from api_keys where id = ${t.keyId} and content_log_mode in ('off', 'metadata'))
    on conflict do nothing`);
}

/**
 * Queues the write after the reply (and after this turn, so redaction never delays the answer's
 * last bytes); `build` makes the record then. A failed write is logged, never the client's.
 */
export function queueContentLog(getDb: () => Promise<DB>, t: ContentLogTarget, meta: { model: string | null; stream: boolean }, build: () => ContentRecord): void {
  afterReply(
    new Promise<void>((r) => setImmediate(r))
      .then(async () => writeContentLog(await getDb(), t, meta, build()))
      .catch((err) => logger().error({ err, requestId: t.requestId }, "content log write failed")),
  );
}

function open(row: typeof contentLogs.$inferSelect): ContentLogView {
  return { requestId: row.requestId, model: row.model, stream: row.stream, createdAt: row.createdAt, content: JSON.parse(decryptSecret(row.sealed)) as ContentRecord };
}

/** Whose logs a viewer reaches: the organisation's, or (memberId) only that member's own requests. */
function scope(accountId: string, memberId?: string) {
  return and(eq(contentLogs.accountId, accountId), memberId ? madeByMember(accountId, memberId, contentLogs.keyId, contentLogs.userId) : undefined);
}

/** One request's content log, or null (none, or another organisation's: the caller answers 404). */
export async function readContentLog(db: DB, accountId: string, requestId: string, memberId?: string): Promise<ContentLogView | null> {
  const [row] = await db.select().from(contentLogs).where(and(scope(accountId, memberId), eq(contentLogs.requestId, requestId)));
  return row ? open(row) : null;
}

/** The JSONL export: one line per logged request, oldest first, read in pages. */
export async function* exportContentLogs(db: DB, accountId: string, f: { from?: Date; to?: Date; memberId?: string }): AsyncGenerator<string> {
  let after = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(contentLogs)
      .where(and(scope(accountId, f.memberId), gt(contentLogs.id, after), f.from ? gte(contentLogs.createdAt, f.from) : undefined, f.to ? lt(contentLogs.createdAt, f.to) : undefined))
      .orderBy(asc(contentLogs.id))
      .limit(200);
    for (const r of rows) {
      const v = open(r);
      yield `${JSON.stringify({ request_id: v.requestId, created_at: v.createdAt.toISOString(), model: v.model, stream: v.stream, key_id: r.keyId, ...v.content })}\n`;
    }
    if (rows.length < 200) return;
    after = rows[rows.length - 1]!.id;
  }
}

/** Deletes rows past their organisation's retention, in short batches. */
export async function deleteExpiredContentLogs(db: DB, now = new Date(), batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const r = (await db.execute(sql`
      with gone as (
        delete from content_logs where id in (
          select c.id from content_logs c join accounts a on a.id = c.account_id
          where c.created_at < ${now}::timestamptz - make_interval(days => a.content_log_retention_days)
          limit ${batch})
        returning 1)
      select count(*)::int as n from gone`)) as unknown as { rows: { n: number }[] };
    const n = Number(r.rows[0]?.n ?? 0);
    total += n;
    if (n < batch) return total;
  }
}

/** Every content log of an organisation (the settings' "delete all logged content"). */
export async function deleteAllContentLogs(db: DB, accountId: string): Promise<number> {
  const gone = await db.delete(contentLogs).where(eq(contentLogs.accountId, accountId)).returning({ id: contentLogs.id });
  return gone.length;
}
