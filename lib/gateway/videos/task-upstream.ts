/**
 * The upstream a task runs on, loaded from the database by the ids stored on the task, so a
 * task keeps polling its upstream even after its model is disabled or its config entry removed.
 * Implements the worker's port (lib/tasks/task-upstream.ts); lib/runtime/jobs.ts wires it in.
 */
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../../db/client";
import { models, upstreams, type UpstreamCredentials } from "../../../db/schema";
import { decryptSecret } from "../../crypto";
import type { TaskRow } from "../../tasks/task-render";
import type { TaskUpstream } from "../../tasks/task-upstream";
import { videoUpstreamFor } from "../upstreams/video-upstream";
import type { ModelRoute } from "../model-route";

async function loadTaskRoute(db: DbOrTx, t: TaskRow): Promise<ModelRoute | null> {
  if (!t.upstreamId) return null;
  const [u] = await db.select().from(upstreams).where(eq(upstreams.id, t.upstreamId));
  if (!u) return null;
  const [m] = t.modelRowId ? await db.select().from(models).where(eq(models.id, t.modelRowId)) : [];
  let apiKey: string | null = null;
  let credentials: UpstreamCredentials | undefined;
  try {
    if (u.apiKeyEncrypted) apiKey = decryptSecret(u.apiKeyEncrypted);
    if (u.credentialsEncrypted) credentials = JSON.parse(decryptSecret(u.credentialsEncrypted)) as UpstreamCredentials;
  } catch {
    return null;
  }
  return {
    rowId: m?.id ?? t.modelRowId ?? "",
    modelId: t.model,
    kind: "video",
    family: t.family,
    ownedBy: m?.ownedBy ?? "",
    upstreamModel: t.upstreamModel ?? m?.upstreamModel ?? t.model,
    price: m?.price ?? {},
    defaultMaxTokens: null,
    strict: false,
    priority: 0,
    weight: 1,
    upstream: { id: u.id, protocol: u.protocol, baseUrl: u.baseUrl, apiKey, timeoutMs: u.timeoutMs, settings: u.settings, credentials },
  };
}

export async function loadTaskUpstream(db: DbOrTx, t: TaskRow): Promise<TaskUpstream | null> {
  const route = await loadTaskRoute(db, t);
  const adapter = route ? videoUpstreamFor(route.upstream.protocol) : null;
  if (!route || !adapter) return null;
  return {
    upstreamId: route.upstream.id,
    modelRowId: route.rowId,
    upstreamModel: route.upstreamModel,
    price: route.price,
    pollIntervalMs: adapter.pollIntervalMs,
    create: (job, signal) => adapter.create(route, job, signal),
    get: (id, signal) => adapter.get(route, id, signal),
    content: (id, signal) => adapter.content(route, id, signal),
  };
}
