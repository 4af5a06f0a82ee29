/**
 * What happens once per circuit change (on the instance that made it, when several share
 * Redis): a history row, a log line, and the signed `upstream.opened` / `upstream.closed`
 * webhook to the operator's URL, queued on the task webhooks' durable queue. Off the request path.
 */
import { createHash } from "node:crypto";
import type { DB } from "../../../db/client";
import { upstreamHealthEvents } from "../../../db/schema";
import { logger } from "../../logger";
import { randomBase62 } from "../../ids";
import { deliverOperatorEventNow, queueOperatorEvent } from "../../tasks/operator-events";
import type { Transition } from "./circuit";
import { splitKey } from "./routing";
import { getOperatorWebhook } from "./webhook-setting";

export function eventBody(t: Transition, id: string, type = t.to === "open" ? "upstream.opened" : "upstream.closed"): string {
  const { modelId, upstreamId } = splitKey(t.key);
  return JSON.stringify({
    id,
    type,
    created: Math.floor(t.at / 1000),
    data: {
      model: modelId,
      upstream: upstreamId,
      state: t.to,
      reason: t.reason,
      error_rate: Math.round(t.errorRate * 1000) / 1000,
      attempts: t.attempts,
      retry_at: t.to === "open" && t.openUntil ? Math.ceil(t.openUntil / 1000) : null,
      last_error: t.lastError ? { status: t.lastError.status, code: t.lastError.code, message: t.lastError.message } : null,
    },
  });
}

export async function announce(db: DB, t: Transition): Promise<void> {
  const { modelId, upstreamId } = splitKey(t.key);
  const log = logger().child({ component: "upstream-health" });
  (t.to === "open" ? log.warn.bind(log) : log.info.bind(log))({ model: modelId, upstream: upstreamId, reason: t.reason }, t.to === "open" ? "circuit opened" : "circuit closed");
  await db.insert(upstreamHealthEvents).values({
    modelId,
    upstreamId,
    state: t.to,
    reason: t.reason,
    errorPercent: Math.round(t.errorRate * 100),
    attempts: t.attempts,
    lastError: t.lastError ?? null,
    openUntil: t.openUntil ? new Date(t.openUntil) : null,
    createdAt: new Date(t.at),
  });
  const hook = await getOperatorWebhook(db);
  if (!hook) return;
  // One id per change, whichever instance queues it: a second insert is a no-op.
  const id = `evt_${createHash("sha256").update(`${t.key}\0${t.to}\0${t.at}`).digest("base64url").slice(0, 24)}`;
  await queueOperatorEvent(db, {
    id: id.replace(/^evt_/, "whd_"),
    subject: t.key,
    event: t.to === "open" ? "upstream.opened" : "upstream.closed",
    url: hook.url,
    body: eventBody(t, id),
    secret: hook.secret,
  });
}

/**
 * Admin → Upstreams, "Send test event": an `upstream.test` event shaped like `upstream.opened`
 * (model and upstream named `test`), signed with the saved secret, sent once now.
 */
export async function sendTestEvent(db: DB) {
  const hook = await getOperatorWebhook(db, true);
  if (!hook) return null;
  const id = `evt_test_${randomBase62(16)}`;
  const now = Date.now();
  const t: Transition = { key: "test-model@test-upstream", from: "closed", to: "open", at: now, reason: "a test event sent from Admin → Upstreams", errorRate: 0, attempts: 0, openUntil: now + 30_000 };
  const outcome = await deliverOperatorEventNow({ id: id.replace(/^evt_/, "whd_"), url: hook.url, body: eventBody(t, id, "upstream.test"), secret: hook.secret });
  return { id, delivered: outcome.result === "delivered", statusCode: outcome.statusCode, error: outcome.error, latencyMs: outcome.latencyMs };
}
