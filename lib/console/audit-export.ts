/**
 * The audit log out of the gateway (decision 0060): an organisation's events (or, for a gateway
 * admin, every event) as CSV or JSONL, one line per event in the shape the audit webhook sends
 * (lib/audit/record.ts auditEvent), oldest first; and the organisation's audit webhook, whose
 * secret is shown once when the URL is set.
 */
import { and, asc, eq, gt, gte, lt } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { accounts, auditLog } from "../../db/schema";
import { auditDiff, auditEvent, recordAudit } from "../audit/record";
import { encryptSecret } from "../crypto";
import { randomBase62 } from "../ids";
import { checkOperatorWebhookUrl } from "../tasks/operator-events";
import type { AuditWebhookView } from "../views";
import { toCsv, type CsvCell } from "./csv";
import { AppError } from "./errors";

export type AuditFormat = "csv" | "jsonl";

export interface AuditExportFilter {
  /** The organisation; null = every event (gateway admins). */
  accountId: string | null;
  from?: Date;
  to?: Date;
}

const PAGE = 1000;
const CSV_HEADER = ["id", "created_at", "organisation_id", "actor", "actor_user_id", "action", "target_type", "target_id", "before", "after", "details"];

async function* events(db: DB, f: AuditExportFilter) {
  let after = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(auditLog)
      .where(and(f.accountId ? eq(auditLog.accountId, f.accountId) : undefined, gt(auditLog.id, after), f.from ? gte(auditLog.createdAt, f.from) : undefined, f.to ? lt(auditLog.createdAt, f.to) : undefined))
      .orderBy(asc(auditLog.id))
      .limit(PAGE);
    for (const r of rows) yield auditEvent(r);
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.id;
  }
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** The export's lines, streamed. */
export async function* auditExportLines(db: DB, format: AuditFormat, f: AuditExportFilter): AsyncGenerator<string> {
  if (format === "csv") yield toCsv(CSV_HEADER, []);
  for await (const e of events(db, f)) {
    if (format === "jsonl") yield `${JSON.stringify(e)}\n`;
    else {
      const row: CsvCell[] = [e.id, e.created_at, e.organisation_id, e.actor, e.actor_user_id, e.action, e.target_type, e.target_id, json(e.before), json(e.after), json(e.details)];
      yield toCsv([], [row]).replace(/^\r\n/, "");
    }
  }
}

/** The export as a download (`format` and the optional `from`/`to` ISO dates from the query). */
export function auditExportResponse(db: DB, params: URLSearchParams, accountId: string | null): Response {
  const format = params.get("format") ?? "csv";
  if (format !== "csv" && format !== "jsonl") throw new AppError("invalid_request", "format: csv or jsonl.", { field: "format" });
  return streamDownload(`audit.${format}`, format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson", auditExportLines(db, format, { accountId, from: exportDate(params, "from"), to: exportDate(params, "to") }));
}

/**
 * An export's `from`/`to` (ISO date or time) as a Date, or a 400 naming it. Years outside
 * 1970–9999 are refused here: the database cannot compare a timestamp past year 9999's ISO form,
 * and the download's stream would fail after its 200.
 */
export function exportDate(params: URLSearchParams, k: "from" | "to"): Date | undefined {
  const v = params.get(k);
  if (!v) return undefined;
  const d = new Date(v);
  const year = d.getUTCFullYear();
  if (Number.isNaN(d.getTime()) || year < 1970 || year > 9999) throw new AppError("invalid_request", `${k}: an ISO date or time (years 1970–9999).`, { field: k });
  return d;
}

/** A download whose body is produced as it is sent (an export never sits whole in memory). */
export function streamDownload(filename: string, contentType: string, lines: AsyncGenerator<string>): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      const n = await lines.next();
      if (n.done) c.close();
      else c.enqueue(enc.encode(n.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": contentType, "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" } });
}

export const auditWebhookSchema = z.object({ url: z.string().max(2048).nullable() });

export async function auditWebhook(db: DB, accountId: string): Promise<AuditWebhookView> {
  const [a] = await db.select({ url: accounts.auditWebhookUrl }).from(accounts).where(eq(accounts.id, accountId));
  return { url: a?.url ?? null };
}

/** Sets (a new secret, returned once as `secret`) or clears the organisation's audit webhook; audited. */
export async function setAuditWebhook(db: DB, actor: { id: string; email: string; accountId: string }, url: string | null): Promise<AuditWebhookView & { secret?: string }> {
  let set: { auditWebhookUrl: string | null; auditWebhookSecretEncrypted: string | null } = { auditWebhookUrl: null, auditWebhookSecretEncrypted: null };
  let secret: string | undefined;
  if (url) {
    const v = await checkOperatorWebhookUrl(url);
    if (!v.ok) throw new AppError("invalid_request", `url: ${v.error}`, { field: "url" });
    secret = `whsec_${randomBase62(32)}`;
    set = { auditWebhookUrl: v.value.url.toString(), auditWebhookSecretEncrypted: encryptSecret(secret) };
  }
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ url: accounts.auditWebhookUrl }).from(accounts).where(eq(accounts.id, actor.accountId)).for("update");
    await tx.update(accounts).set(set).where(eq(accounts.id, actor.accountId));
    // Recorded after the change: setting a webhook announces itself on it.
    await recordAudit(tx, { accountId: actor.accountId, actorUserId: actor.id, actor: actor.email, action: "org.audit_webhook", targetType: "account", targetId: actor.accountId, details: { ...auditDiff({ url: before?.url ?? null }, { url: set.auditWebhookUrl }), newSecret: Boolean(secret) } });
  });
  return { url: set.auditWebhookUrl, ...(secret ? { secret } : {}) };
}
