/**
 * Writing the audit log: who did what to which target. Below the console and the organisations
 * code, which both record (the console also reads it back: lib/console/audit.ts).
 */
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

export async function recordAudit(db: DbOrTx, input: AuditInput): Promise<void> {
  await db.insert(auditLog).values(input);
}
