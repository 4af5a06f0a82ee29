/**
 * Raising an alert (decision 0029): one row per crossing, keyed by `dedupeKey`, so concurrent
 * requests and several instances raising the same crossing insert one row and deliver once.
 * Delivery (email, signed webhook) is claimed from the row by the worker (dispatch.ts), so
 * raising inside a caller's transaction adds one INSERT and nothing leaves before its commit.
 * Low balance is raised by a database trigger (migration 0012), not through here.
 */
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { alerts, type AlertKind } from "../../db/schema";
import { newId } from "../ids";

export interface RaiseAlert {
  accountId: string;
  kind: AlertKind;
  /** Names the crossing, e.g. `budget_80:<budget id>:<window start>`; a second raise is a no-op. */
  dedupeKey: string;
  data?: Record<string, unknown>;
}

/** Inserts the alert unless its crossing was already raised; returns the new id or null. */
export async function raiseAlert(db: DbOrTx, a: RaiseAlert): Promise<string | null> {
  const rows = await db
    .insert(alerts)
    .values({ id: newId("alert"), accountId: a.accountId, kind: a.kind, dedupeKey: a.dedupeKey, data: a.data ?? {} })
    .onConflictDoNothing({ target: alerts.dedupeKey })
    .returning({ id: alerts.id });
  return rows[0]?.id ?? null;
}

/** Alerts of one organisation, newest first (the console's list). */
export async function recentAlerts(db: DbOrTx, accountId: string, limit = 50) {
  return db
    .select()
    .from(alerts)
    .where(sql`${alerts.accountId} = ${accountId}`)
    .orderBy(sql`${alerts.createdAt} desc`)
    .limit(limit);
}
