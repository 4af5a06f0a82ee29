import { and, desc, eq, ilike, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { apiKeys, auditLog, users } from "../../db/schema";
import type { AuditView } from "../views";

export { auditDiff, recordAudit, type AuditInput } from "../audit/record";

export interface AuditFilter {
  /** One organisation's events (its owners' and admins' view); absent = every event (gateway admins). */
  accountId?: string;
  before?: number;
  limit?: number;
  /** Part of the actor's email, or "cli". */
  actor?: string;
  /** An action or its area: "user.update", "balance", "key". */
  action?: string;
  /** Part of the target's id or name (a user's email, a key's name). */
  target?: string;
}

const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Newest first, with the target's name (user email, key name) beside its id. */
export async function listAudit(db: DbOrTx, opts: AuditFilter = {}): Promise<{ items: AuditView[]; nextCursor: number | null }> {
  const limit = Math.min(opts.limit ?? 50, 200);
  const targetName = sql<string | null>`coalesce(${users.email}, ${apiKeys.name})`;
  const rows = await db
    .select({
      id: auditLog.id,
      actorUserId: auditLog.actorUserId,
      actor: auditLog.actor,
      action: auditLog.action,
      targetType: auditLog.targetType,
      targetId: auditLog.targetId,
      targetName,
      details: auditLog.details,
      createdAt: auditLog.createdAt,
    })
    .from(auditLog)
    .leftJoin(users, and(eq(auditLog.targetType, "user"), eq(users.id, auditLog.targetId)))
    .leftJoin(apiKeys, and(eq(auditLog.targetType, "api_key"), eq(apiKeys.id, auditLog.targetId)))
    .where(
      and(
        opts.accountId ? eq(auditLog.accountId, opts.accountId) : undefined,
        opts.before ? lt(auditLog.id, opts.before) : undefined,
        opts.actor ? ilike(auditLog.actor, like(opts.actor)) : undefined,
        opts.action ? or(eq(auditLog.action, opts.action), ilike(auditLog.action, `${opts.action.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`)) : undefined,
        opts.target ? or(ilike(auditLog.targetId, like(opts.target)), ilike(targetName, like(opts.target))) : undefined,
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit), nextCursor: rows.length > limit ? rows[limit - 1]!.id : null };
}
