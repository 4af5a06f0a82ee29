/** The request-log row of a video route call (never the prompt). */
import { eq } from "drizzle-orm";
import type { DB, DbOrTx } from "../../../db/client";
import { tasks } from "../../../db/schema";
import type { RequestLogFields } from "../../billing/port";
import { insertRequestLog, requestLogRow } from "../../billing/request-log";
import { billingRequest } from "../billing";
import type { RouteContext } from "../types";

/** The public route of every video submission (the log row's `route`). */
export const VIDEO_ROUTE = "/v1/videos";

/** The row as every capability's: the billing port's RequestLogFields, and what was charged. */
export async function logVideoRequest(db: DbOrTx, ctx: RouteContext, log: RequestLogFields, costMicroUsd = 0): Promise<void> {
  const model = log.model === null ? null : storable(log.model).slice(0, 200);
  await insertRequestLog(db, requestLogRow(billingRequest(ctx, VIDEO_ROUTE), Object.assign({}, log, { model }), costMicroUsd));
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
export async function logVideoSubmitted(db: DB, ctx: RouteContext, taskId: string, log: RequestLogFields, heldMicroUsd: number): Promise<number> {
  return db.transaction(async (tx) => {
    const [t] = await tx.select({ cost: tasks.costMicroUsd, status: tasks.status }).from(tasks).where(eq(tasks.id, taskId)).for("update");
    const refunded = t?.status === "failed";
    const costMicroUsd = t ? t.cost : heldMicroUsd;
    await logVideoRequest(tx, ctx, refunded ? Object.assign({}, log, { settlement: "refunded" }) : log, costMicroUsd);
    return costMicroUsd;
  });
}
