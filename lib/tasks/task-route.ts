/**
 * The upstream a task runs on, loaded from the database by the ids stored on the task, so a
 * task keeps polling its upstream even after its model is disabled or its config entry removed.
 */
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { models, upstreams } from "../../db/schema";
import { decryptSecret } from "../crypto";
import { demoVideo } from "../gateway/upstreams/demo-video";
import { openaiVideo } from "../gateway/upstreams/openai-video";
import type { TaskRow } from "./task-render";
import type { VideoRoute, VideoUpstream } from "./video-types";

export function videoUpstreamFor(protocol: string): VideoUpstream | null {
  if (protocol === "openai-video") return openaiVideo;
  if (protocol === "demo") return demoVideo;
  return null;
}

export async function loadTaskRoute(db: DbOrTx, t: TaskRow): Promise<VideoRoute | null> {
  if (!t.upstreamId) return null;
  const [u] = await db.select().from(upstreams).where(eq(upstreams.id, t.upstreamId));
  if (!u) return null;
  const [m] = t.modelRowId ? await db.select().from(models).where(eq(models.id, t.modelRowId)) : [];
  let apiKey: string | null = null;
  if (u.apiKeyEncrypted) {
    try {
      apiKey = decryptSecret(u.apiKeyEncrypted);
    } catch {
      return null;
    }
  }
  return {
    rowId: m?.id ?? t.modelRowId ?? "",
    modelId: t.model,
    family: t.family,
    upstreamModel: t.upstreamModel ?? m?.upstreamModel ?? t.model,
    price: m?.price ?? {},
    upstream: { id: u.id, protocol: u.protocol, baseUrl: u.baseUrl, apiKey, timeoutMs: u.timeoutMs },
  };
}
