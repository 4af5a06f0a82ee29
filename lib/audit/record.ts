/**
 * Writing the audit log: who did what to which target, in which organisation, with the fields
 * before and after. Below the console and the organisations code, which both record (the console
 * also reads it back: lib/console/audit.ts). An organisation with an audit webhook gets each of
 * its events queued, signed, on the task webhooks' durable queue in the same transaction
 * (decision 0060).
 */
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { auditLog } from "../../db/schema";

export interface AuditInput {
  /** The organisation the action concerns (its admins read and export it); omit for instance-wide actions. */
  accountId?: string | null;
  actorUserId: string | null;
  /** The actor's email, or "cli". */
  actor: string;
  action: string;
  targetType?: string;
  targetId?: string;
  /**
   * Never secrets: callers pass field names that changed, not values of credentials. An edit
   * carries `before` and `after` (auditDiff); a creation `after`, a deletion `before`.
   */
  details?: Record<string, unknown>;
}

type Fields = Record<string, unknown>;

const comparable = (v: unknown) => JSON.stringify(v instanceof Date ? v.toISOString() : (v ?? null));
const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : (v ?? null));

/**
 * What an edit changed, for the audit view's before → after lines: only the fields whose value
 * differs, Dates as ISO strings. Never pass credentials: callers map a secret to "set"/"none".
 */
export function auditDiff(before: Fields, after: Fields): { before: Fields; after: Fields } {
  const out = { before: {} as Fields, after: {} as Fields };
  for (const k of Object.keys(after)) {
    if (comparable(before[k]) === comparable(after[k])) continue;
    out.before[k] = plain(before[k]);
    out.after[k] = plain(after[k]);
  }
  return out;
}

/** The audit event as exports and the webhook carry it (one shape for CSV, JSONL and the stream). */
export function auditEvent(r: typeof auditLog.$inferSelect) {
  const d = r.details ?? {};
  const { before, after, ...rest } = d as { before?: unknown; after?: unknown };
  return {
    id: `audit_${r.id}`,
    type: `audit.${r.action}`,
    organisation_id: r.accountId,
    created_at: r.createdAt.toISOString(),
    actor: r.actor,
    actor_user_id: r.actorUserId,
    action: r.action,
    target_type: r.targetType,
    target_id: r.targetId,
    before: before ?? null,
    after: after ?? null,
    details: rest,
  };
}

export async function recordAudit(db: DbOrTx, input: AuditInput): Promise<void> {
  const [row] = await db
    .insert(auditLog)
    .values({ accountId: input.accountId ?? null, actorUserId: input.actorUserId, actor: input.actor, action: input.action, targetType: input.targetType, targetId: input.targetId, details: input.details })
    .returning();
  if (!row?.accountId) return;
  // Queued only where the organisation set an audit webhook; the worker signs and delivers it.
  const id = `audit_${row.id}`;
  await db.execute(sql`
    insert into webhook_deliveries (id, kind, task_id, account_id, url, body, event_status, secret_encrypted, state, next_attempt_at)
    select ${`whd_${id}`}, 'audit', ${id}, a.id, a.audit_webhook_url, ${JSON.stringify(auditEvent(row))}, ${row.action}, a.audit_webhook_secret_encrypted, 'pending', now()
    from accounts a where a.id = ${row.accountId} and a.audit_webhook_url is not null
    on conflict do nothing`);
}
