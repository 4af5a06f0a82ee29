/**
 * Admin → Upstreams, health: every entry's circuit (this instance's memory, which with Redis
 * holds every instance's counts and states), the last errors (shared through Redis when set),
 * the history of circuit changes, and the operator webhook setting.
 */
import { desc } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { models, upstreamHealthEvents } from "../../db/schema";
import { health, sharedHealth } from "../gateway/health";
import { sendTestEvent } from "../gateway/health/announce";
import { getOperatorWebhook, saveOperatorWebhook } from "../gateway/health/webhook-setting";
import type { Actor } from "./admin-users";
import { recordAudit } from "./audit";
import { AppError } from "./errors";
import type { UpstreamHealthView, UpstreamWebhookSavedView, UpstreamWebhookTestedView } from "../views";

export async function upstreamHealthView(db: DB): Promise<UpstreamHealthView> {
  const snapshot = health().snapshot();
  const shared = await sharedHealth()?.lastErrors(snapshot.map((e) => e.key));
  const known = new Set(snapshot.map((e) => e.key));
  // Entries with no traffic yet are healthy: list them too, so the page shows every entry.
  const rows = await db.select({ modelId: models.modelId, upstreamId: models.upstreamId, priority: models.priority, weight: models.weight, enabled: models.enabled }).from(models);
  const byKey = new Map(rows.map((r) => [`${r.modelId}@${r.upstreamId}`, r]));
  const entries = [
    ...snapshot.map((e) => ({ ...e, lastErrors: shared?.get(e.key)?.length ? shared.get(e.key)! : e.lastErrors })),
    ...rows
      .filter((r) => r.enabled && !known.has(`${r.modelId}@${r.upstreamId}`))
      .map((r) => ({ key: `${r.modelId}@${r.upstreamId}`, modelId: r.modelId, upstreamId: r.upstreamId, state: "closed" as const, errorRate: 0, attempts: 0, failed: 0, openedAt: null, openUntil: null, reason: null, changedAt: null, lastErrors: [] })),
  ]
    .map((e) => ({ ...e, priority: byKey.get(e.key)?.priority ?? null, weight: byKey.get(e.key)?.weight ?? null }))
    .sort((a, b) => a.modelId.localeCompare(b.modelId) || (a.priority ?? 0) - (b.priority ?? 0) || a.upstreamId.localeCompare(b.upstreamId));
  const history = await db.select().from(upstreamHealthEvents).orderBy(desc(upstreamHealthEvents.id)).limit(50);
  const hook = await getOperatorWebhook(db, true);
  return {
    policy: health().policy,
    entries,
    history: history.map((h) => ({ ...h, openUntil: h.openUntil?.toISOString() ?? null, createdAt: h.createdAt.toISOString() })),
    webhook: hook ? { url: hook.url, hasSecret: Boolean(hook.secret) } : null,
  };
}

export const webhookSettingSchema = z.object({
  /** null or "" removes it. */
  url: z.union([z.null(), z.string().trim().max(2048)]),
  newSecret: z.boolean().optional(),
});

export async function setUpstreamWebhook(db: DB, actor: Actor, body: z.infer<typeof webhookSettingSchema>): Promise<UpstreamWebhookSavedView> {
  const r = await saveOperatorWebhook(db, { url: body.url || null, newSecret: body.newSecret });
  if (!r.ok) throw new AppError("invalid_request", `This webhook URL is refused: ${r.error}.`, { field: "url" });
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action: "upstream_webhook.set", targetType: "setting", targetId: "upstream_webhook", details: { url: r.value.url, newSecret: Boolean(r.value.secret) } });
  return { ok: true, ...r.value };
}

/** "Send test event": one signed `upstream.test` to the saved URL, and what the receiver answered. */
export async function testUpstreamWebhook(db: DB, actor: Actor): Promise<UpstreamWebhookTestedView> {
  const r = await sendTestEvent(db);
  if (!r) throw new AppError("invalid_request", "Save a webhook URL first.", { field: "url" });
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action: "upstream_webhook.test", targetType: "setting", targetId: "upstream_webhook", details: { delivered: r.delivered, statusCode: r.statusCode } });
  return r;
}
