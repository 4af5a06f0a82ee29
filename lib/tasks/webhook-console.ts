/**
 * What the console shows and does for webhooks (the owner's view; every function is scoped to
 * one account): the attempt log of each delivery, "resend" (a new delivery of the same signed
 * body with a full retry schedule, or a retry now of one still pending), and "send test event" (a Task-shaped body with an id
 * `task_test_…` in state completed, marked `"test": true`, signed like a real delivery and
 * sent at once, one attempt, no retries).
 */
import { and, desc, eq, inArray, lt } from "drizzle-orm";
import type { Dispatcher } from "undici";
import type { DB } from "../../db/client";
import { webhookAttempts, webhookDeliveries } from "../../db/schema";
import { env } from "../env";
import { newId, randomBase62 } from "../ids";
import { checkWebhookUrl, type WebhookUrlPolicy } from "./ssrf";
import { webhookPolicy } from "./webhook-policy";
import { runDelivery, type DeliveryRow } from "./webhook-queue";
import { wakeWorkers } from "./wake";
import type { WebhookAttemptView, WebhookDeliveryView, WebhookTestEvent } from "../views";
import type { Result } from "../result";
export type { WebhookAttemptView, WebhookDeliveryView };

function view(d: DeliveryRow, attempts: (typeof webhookAttempts.$inferSelect)[]): WebhookDeliveryView {
  return {
    id: d.id,
    taskId: d.taskId,
    url: d.url,
    eventStatus: d.eventStatus,
    isTest: d.isTest,
    state: d.state,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    attemptLog: attempts
      .filter((a) => a.deliveryId === d.id)
      .sort((a, b) => a.attemptNo - b.attemptNo)
      .map((a) => ({ attemptNo: a.attemptNo, statusCode: a.statusCode, latencyMs: a.latencyMs, error: a.error, at: a.createdAt.toISOString() })),
  };
}

/** The account's deliveries, newest first, each with its attempt log. */
export async function listWebhookDeliveries(
  db: DB,
  accountId: string,
  opts: { taskId?: string; limit?: number; before?: Date } = {},
): Promise<WebhookDeliveryView[]> {
  const conds = [eq(webhookDeliveries.accountId, accountId)];
  if (opts.taskId) conds.push(eq(webhookDeliveries.taskId, opts.taskId));
  if (opts.before) conds.push(lt(webhookDeliveries.createdAt, opts.before));
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(...conds))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(Math.min(Math.max(opts.limit ?? 50, 1), 200));
  if (rows.length === 0) return [];
  const attempts = await db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, rows.map((r) => r.id)));
  return rows.map((r) => view(r, attempts));
}

/**
 * Resends a delivery. While a delivery of the same event to the same URL is still pending
 * (this one, or an earlier resend), that one is retried now instead of queueing another
 * (each with its own retry schedule); otherwise the same body goes out as a new delivery with a
 * fresh schedule. The row lock serialises concurrent resends of one delivery.
 */
export async function resendWebhook(
  db: DB,
  accountId: string,
  deliveryId: string,
): Promise<Result<{ delivery: WebhookDeliveryView; retried: boolean }, "not_found" | "test_event">> {
  const r = await db.transaction(async (tx): Promise<Result<{ row: DeliveryRow; retried: boolean }, "not_found" | "test_event">> => {
    const [d] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.accountId, accountId)))
      .for("update");
    if (!d) return { ok: false, error: "not_found" };
    if (d.isTest) return { ok: false, error: "test_event" };
    const [pending] =
      d.state === "pending"
        ? [d]
        : await tx
            .select()
            .from(webhookDeliveries)
            .where(
              and(
                eq(webhookDeliveries.accountId, accountId),
                eq(webhookDeliveries.taskId, d.taskId),
                eq(webhookDeliveries.url, d.url),
                eq(webhookDeliveries.eventStatus, d.eventStatus),
                eq(webhookDeliveries.state, "pending"),
              ),
            )
            .limit(1);
    if (pending) {
      // Due now; an attempt already in flight (lockedUntil) keeps its lease and sets the next time itself.
      const [row] = await tx.update(webhookDeliveries).set({ nextAttemptAt: new Date() }).where(eq(webhookDeliveries.id, pending.id)).returning();
      return { ok: true, value: { row: row!, retried: true } };
    }
    const [copy] = await tx
      .insert(webhookDeliveries)
      // The copy keeps its kind and the secret it was queued with: an alert's or an audit event's
      // resend is signed with the organisation's secret, not looked up as a task's.
      .values({ id: newId("delivery"), kind: d.kind, taskId: d.taskId, accountId, url: d.url, body: d.body, eventStatus: d.eventStatus, secretEncrypted: d.secretEncrypted, state: "pending", nextAttemptAt: new Date() })
      .returning();
    return { ok: true, value: { row: copy!, retried: false } };
  });
  if (!r.ok) return r;
  wakeWorkers();
  const { row, retried } = r.value;
  const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, row.id));
  return { ok: true, value: { delivery: view(row, attempts), retried } };
}

export interface TestEventInput {
  url: string;
  /** Optional; 8–128 characters, like `webhook_secret`. */
  secret?: string | null;
}

/** Why a test event was not sent: the console form's field and the message it shows. */
export interface TestEventRefusal {
  field: "url" | "secret";
  message: string;
}

export type TestEventResult = Result<WebhookTestEvent, TestEventRefusal>;

/** Sends one signed test event now and returns its recorded attempt. */
export async function sendTestWebhook(
  db: DB,
  accountId: string,
  input: TestEventInput,
  deps: { policy?: WebhookUrlPolicy; dispatcher?: Dispatcher } = {},
): Promise<TestEventResult> {
  const e = env();
  const wp = deps.policy && deps.dispatcher ? { policy: deps.policy, dispatcher: deps.dispatcher } : webhookPolicy();
  if (input.secret != null && (input.secret.length < 8 || input.secret.length > 128)) {
    return { ok: false, error: { field: "secret", message: "The secret must be 8 to 128 characters." } };
  }
  const verdict = await checkWebhookUrl(input.url, wp.policy);
  if (!verdict.ok) return { ok: false, error: { field: "url", message: `This URL is not allowed: it ${verdict.error}.` } };
  const now = Math.floor(Date.now() / 1000);
  const taskId = `task_test_${randomBase62(20)}`;
  const body = JSON.stringify({
    id: taskId,
    object: "task",
    status: "completed",
    model: "test-event",
    progress: 100,
    created: now,
    completed: now,
    cost: 0,
    result: { videos: [{ url: [`${e.publicBaseUrl}/v1/media/${taskId}/video-0.mp4`], expires_at: now + 14 * 86_400 }] },
    error: null,
    test: true,
  });
  const [d] = await db
    .insert(webhookDeliveries)
    .values({ id: newId("delivery"), taskId, accountId, url: input.url, body, eventStatus: "completed", isTest: true, state: "pending", nextAttemptAt: null })
    .returning();
  const outcome = await runDelivery(d!, { db, ...wp, timeoutMs: e.WEBHOOK_TIMEOUT_MS, scheduleS: e.WEBHOOK_RETRY_SCHEDULE_S }, input.secret ?? null);
  const [view1] = await listWebhookDeliveries(db, accountId, { taskId });
  return { ok: true, value: { delivery: view1!, outcome } };
}
