/**
 * Durable webhook deliveries (table webhook_deliveries, one row per announced final state;
 * webhook_attempts, one row per attempt). Workers claim due rows with FOR UPDATE SKIP LOCKED
 * and a lease, so several workers never send one attempt twice; an attempt's outcome is
 * recorded with a compare-and-set on the attempt count. At-least-once: a crash after the
 * receiver's 2xx but before the record re-sends, and receivers dedupe on id + status.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or } from "drizzle-orm";
import type { Dispatcher } from "undici";
import type { DB } from "../../db/client";
import { tasks, webhookAttempts, webhookDeliveries } from "../../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import type { WebhookUrlPolicy } from "./ssrf";
import { attemptDelivery, nextRetryDelayS, type AttemptOutcome } from "./webhook-client";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface DeliveryDeps {
  db: DB;
  policy: WebhookUrlPolicy;
  dispatcher: Dispatcher;
  timeoutMs: number;
  scheduleS: readonly number[];
  now?: () => Date;
}

export async function claimDueDeliveries(db: DB, now: Date, limit: number, leaseMs: number): Promise<DeliveryRow[]> {
  const due = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.state, "pending"),
        lte(webhookDeliveries.nextAttemptAt, now),
        or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, now)),
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(webhookDeliveries)
    .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
    .where(inArray(webhookDeliveries.id, due))
    .returning();
}

async function secretFor(db: DB, d: DeliveryRow, given?: string | null): Promise<string | null> {
  if (given !== undefined) return given;
  // Events that are not a task's carry the secret they were queued with (operator, alert, audit).
  if (d.kind !== "task") return d.secretEncrypted ? safeDecrypt(d.secretEncrypted) : null;
  const [t] = await db.select({ s: tasks.webhookSecretEncrypted }).from(tasks).where(eq(tasks.id, d.taskId));
  if (!t?.s) return null;
  try {
    return decryptSecret(t.s);
  } catch {
    return null;
  }
}

function safeDecrypt(s: string): string | null {
  try {
    return decryptSecret(s);
  } catch {
    return null;
  }
}

/**
 * Queues an operator event (upstream.opened / upstream.closed) on this same durable queue:
 * signed, SSRF-guarded and retried like a task's. `id` is derived from the event, so queueing
 * it twice (two instances) is a no-op. Returns whether this call queued it.
 */
export async function enqueueOperatorEvent(
  db: DB,
  e: { id: string; subject: string; event: string; url: string; body: string; secret: string | null; now?: Date },
): Promise<boolean> {
  const rows = await db
    .insert(webhookDeliveries)
    .values({
      id: e.id,
      kind: "operator",
      taskId: e.subject,
      accountId: null,
      url: e.url,
      body: e.body,
      eventStatus: e.event,
      secretEncrypted: e.secret ? encryptSecret(e.secret) : null,
      state: "pending",
      nextAttemptAt: e.now ?? new Date(),
    })
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

/** Makes one attempt of a claimed delivery and records it. */
export async function runDelivery(d: DeliveryRow, deps: DeliveryDeps, secretOverride?: string | null): Promise<AttemptOutcome> {
  const secret = await secretFor(deps.db, d, secretOverride);
  const outcome = await attemptDelivery({
    url: d.url,
    body: d.body,
    secret,
    deliveryId: d.id,
    timeoutMs: deps.timeoutMs,
    policy: deps.policy,
    dispatcher: deps.dispatcher,
  });
  await recordAttempt(deps, d, outcome, !d.isTest);
  return outcome;
}

async function recordAttempt(deps: DeliveryDeps, d: DeliveryRow, o: AttemptOutcome, retries: boolean): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const attemptNo = d.attempts + 1;
  const delay = o.result === "retry" && retries ? nextRetryDelayS(attemptNo, deps.scheduleS) : null;
  const state = o.result === "delivered" ? "delivered" : o.result === "stop" ? "stopped" : delay === null ? "failed" : "pending";
  await deps.db.transaction(async (tx) => {
    const updated = await tx
      .update(webhookDeliveries)
      .set({
        attempts: attemptNo,
        state,
        nextAttemptAt: state === "pending" ? new Date(now.getTime() + delay! * 1000) : null,
        lockedUntil: null,
        lastStatusCode: o.statusCode,
        lastError: o.error,
        updatedAt: now,
      })
      .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.attempts, d.attempts)))
      .returning({ id: webhookDeliveries.id });
    // Another worker recorded this attempt number (our lease ran out): keep its record.
    if (updated.length === 0) return;
    await tx
      .insert(webhookAttempts)
      .values({ deliveryId: d.id, attemptNo, statusCode: o.statusCode, latencyMs: o.latencyMs, error: o.error, createdAt: now })
      .onConflictDoNothing();
  });
}
