/** The console's Webhooks page: the account's deliveries, resend, and a signed test event. */
import { z } from "zod";
import type { DB } from "../../db/client";
import { listWebhookDeliveries, resendWebhook, sendTestWebhook } from "../tasks/webhook-console";
import { hit, type LimitRule } from "../auth/rate-limit";
import { AppError } from "./errors";

export async function listDeliveries(db: DB, accountId: string, opts: { taskId?: string; before?: string }) {
  const before = opts.before ? new Date(opts.before) : undefined;
  const items = await listWebhookDeliveries(db, accountId, {
    taskId: opts.taskId || undefined,
    before: before && !Number.isNaN(before.getTime()) ? before : undefined,
    limit: 50,
  });
  return { items, nextCursor: items.length === 50 ? items[items.length - 1]!.createdAt : null };
}

/**
 * Per-account limits on what makes the gateway send POSTs for free (shared through Redis when
 * REDIS_URL is set): signed test events, and resends, each of which may carry a full retry schedule.
 */
export const WEBHOOK_TEST_RULE: LimitRule = { limit: 10, windowS: 60 };
export const WEBHOOK_RESEND_RULE: LimitRule = { limit: 30, windowS: 60 * 60 };

async function limit(name: string, rule: LimitRule, accountId: string, what: string): Promise<void> {
  const wait = await hit(name, rule, accountId);
  if (wait > 0) throw new AppError("rate_limited", `At most ${rule.limit} ${what} per ${rule.windowS >= 3600 ? "hour" : "minute"}. Try again in ${wait} s.`, { retryAfterS: wait });
}

export async function resend(db: DB, accountId: string, deliveryId: string) {
  await limit("wh_resend", WEBHOOK_RESEND_RULE, accountId, "resends");
  const r = await resendWebhook(db, accountId, deliveryId);
  if (!r.ok) {
    if (r.error === "not_found") throw new AppError("not_found", "No such delivery.");
    throw new AppError("invalid_request", "Test events are not resent; send a new one.");
  }
  return r.value.delivery;
}

export const testEventSchema = z.object({
  url: z.string().trim().min(1, "Enter the URL that should receive the event.").max(2048),
  secret: z.string().max(128).optional(),
});

export async function sendTest(db: DB, accountId: string, body: z.infer<typeof testEventSchema>) {
  await limit("wh_test", WEBHOOK_TEST_RULE, accountId, "test events");
  const r = await sendTestWebhook(db, accountId, { url: body.url, secret: body.secret || null });
  if (!r.ok) throw new AppError("invalid_request", r.error.message, { field: r.error.field });
  return r.value;
}
