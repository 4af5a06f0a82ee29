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
import { wakeWorkers } from "./worker";
import type { WebhookAttemptView, WebhookDeliveryView, WebhookTestEvent } from "../views";
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
): Promise<{ ok: true; delivery: WebhookDeliveryView; retried: boolean } | { ok: false; reason: "not_found" | "test_event" }> {
  const r = await db.transaction(async (tx) => {
    const [d] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.accountId, accountId)))
      .for("update");
    if (!d) return { ok: false, reason: "not_found" } as const;
    if (d.isTest) return { ok: false, reason: "test_event" } as const;
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
      return { ok: true, row: row!, retried: true } as const;
    }
    const [copy] = await tx
      .insert(webhookDeliveries)
      .values({ id: newId("delivery"), taskId: d.taskId, accountId, url: d.url, body: d.body, eventStatus: d.eventStatus, state: "pending", nextAttemptAt: new Date() })
      .returning();
    return { ok: true, row: copy!, retried: false } as const;
  });
  if (!r.ok) return r;
  wakeWorkers();
  const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, r.row.id));
  return { ok: true, delivery: view(r.row, attempts), retried: r.retried };
}

export interface TestEventInput {
  url: string;
  /** Optional; 8–128 characters, like `webhook_secret`. */
  secret?: string | null;
}

export type TestEventResult =
  | ({ ok: true } & WebhookTestEvent)
  | { ok: false; reason: "invalid_url" | "invalid_secret"; message: string };

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
    return { ok: false, reason: "invalid_secret", message: "The secret must be 8 to 128 characters." };
  }
  const verdict = await checkWebhookUrl(input.url, wp.policy);
  if (!verdict.ok) return { ok: false, reason: "invalid_url", message: `This URL is not allowed: it ${verdict.reason}.` };
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
  return { ok: true, delivery: view1!, outcome };
}
