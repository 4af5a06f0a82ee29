/**
 * Operator events (upstream health's `upstream.opened` / `upstream.closed`) on the task
 * webhooks' machinery, for the gateway: the same URL rules when the URL is saved, and the same
 * durable, signed, retried queue. The gateway's one door to it (dependency-cruiser rule).
 */
import type { DB } from "../../db/client";
import { env } from "../env";
import { checkWebhookUrl, type UrlVerdict } from "./ssrf";
import { attemptDelivery, type AttemptOutcome } from "./webhook-client";
import { webhookPolicy } from "./webhook-policy";
import { enqueueOperatorEvent } from "./webhook-queue";
import { wakeWorkers } from "./wake";

export function checkOperatorWebhookUrl(url: string): Promise<UrlVerdict> {
  return checkWebhookUrl(url, webhookPolicy().policy);
}

/** Queues the event (a second call with the same id is a no-op) and wakes this process's worker. */
export async function queueOperatorEvent(db: DB, e: Parameters<typeof enqueueOperatorEvent>[1]): Promise<boolean> {
  const queued = await enqueueOperatorEvent(db, e);
  if (queued) wakeWorkers();
  return queued;
}

/**
 * One attempt now, signed and through the same guarded client, nothing queued or stored: the
 * admin console's "Send test event", which shows the receiver's answer at once.
 */
export function deliverOperatorEventNow(e: { id: string; url: string; body: string; secret: string | null }): Promise<AttemptOutcome> {
  const { policy, dispatcher } = webhookPolicy();
  return attemptDelivery({ url: e.url, body: e.body, secret: e.secret, deliveryId: e.id, timeoutMs: env().WEBHOOK_TIMEOUT_MS, policy, dispatcher });
}
