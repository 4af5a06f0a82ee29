import { desc, lt } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { auditLog } from "../../db/schema";

export interface AuditInput {
  actorUserId: string | null;
  /** The actor's email, or "cli". */
  actor: string;
  action: string;
  targetType?: string;
  targetId?: string;
  /** Never secrets: callers pass field names that changed, not values of credentials. */
  details?: Record<string, unknown>;
}

export async function recordAudit(db: DbOrTx, input: AuditInput): Promise<void> {
  await db.insert(auditLog).values(input);
}

export async function listAudit(db: DbOrTx, opts: { before?: number; limit?: number } = {}) {
  const limit = Math.min(opts.limit ?? 50, 200);
  const rows = await db
    .select()
    .from(auditLog)
    .where(opts.before ? lt(auditLog.id, opts.before) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit), nextCursor: rows.length > limit ? rows[limit - 1]!.id : null };
}
