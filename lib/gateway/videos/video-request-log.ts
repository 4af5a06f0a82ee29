/** The request-log row of a video route call (never the prompt). */
import { eq } from "drizzle-orm";
import type { DB, DbOrTx } from "../../../db/client";
import { tasks, type ModelPrice, type RouteTraceEntry } from "../../../db/schema";
import { insertRequestLog, requestLogRow } from "../../billing/request-log";
import { billingRequest } from "../billing";
import type { RouteContext } from "../types";

export interface VideoLogFields {
  route: string;
  /** What the client asked for (an alias, or a shut-down model its successor serves). */
  model: string | null;
  /** The model that served, when not `model` (decision 0022). */
  servedModel?: string | null;
  upstreamId?: string | null;
  upstreamProtocol?: string | null;
  status: number;
  errorCode?: string | null;
  costMicroUsd?: number;
  /** task_submitted | rejected | upstream_error | invalid */
  settlement: string;
  price?: ModelPrice | null;
  /** Which entries served, failed or were skipped, and why (lib/gateway/health/trace.ts). */
  routeTrace?: RouteTraceEntry[] | null;
}

export async function logVideoRequest(db: DbOrTx, ctx: RouteContext, log: VideoLogFields): Promise<void> {
  const { route, price, costMicroUsd, ...fields } = log;
  const model = log.model === null ? null : storable(log.model).slice(0, 200);
  await insertRequestLog(db, requestLogRow(billingRequest(ctx, route), { ...fields, model, priceSnapshot: price ?? null }, costMicroUsd ?? 0));
}

/** A client-chosen string as PostgreSQL text can hold it (no NUL, no lone surrogates). */
function storable(s: string): string {
  return (s as string & { toWellFormed(): string }).toWellFormed().replaceAll("\u0000", "\ufffd");
}

/**
 * The log row of an accepted submission, written under the task's row lock so it carries the
 * task's cost as it is now: a worker may already have failed (refunded) or completed (released)
 * the task, and its own update of this row could not have seen a row not yet written. Answers
 * that cost.
 */
export async function logVideoSubmitted(db: DB, ctx: RouteContext, taskId: string, log: VideoLogFields): Promise<number> {
  return db.transaction(async (tx) => {
    const [t] = await tx.select({ cost: tasks.costMicroUsd, status: tasks.status }).from(tasks).where(eq(tasks.id, taskId)).for("update");
    const refunded = t?.status === "failed";
    const costMicroUsd = t ? t.cost : (log.costMicroUsd ?? 0);
    await logVideoRequest(tx, ctx, { ...log, costMicroUsd, settlement: refunded ? "refunded" : log.settlement });
    return costMicroUsd;
  });
}
