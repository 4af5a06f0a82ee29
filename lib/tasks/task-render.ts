/**
 * The public shapes of a task: the Video object (`/v1/videos…`, OpenAI's videos API shape) and
 * the Task object (`GET /v1/tasks/{id}` and the webhook body). Money leaves as USD numbers.
 */
import type { tasks } from "../../db/schema";
import { microToUsd } from "../billing/money";
import { signedMediaUrl } from "./media-url";

export type TaskRow = typeof tasks.$inferSelect;

const unix = (d: Date | null | undefined) => (d ? Math.floor(d.getTime() / 1000) : null);

export function renderVideo(t: TaskRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    object: "video",
    model: t.model,
    status: t.status,
    progress: t.progress,
    created_at: unix(t.createdAt),
    completed_at: t.status === "completed" || t.status === "failed" ? unix(t.completedAt) : null,
    expires_at: unix(t.expiresAt),
    prompt: typeof t.params.prompt === "string" ? t.params.prompt : null,
    seconds: t.seconds,
    size: t.size,
    remixed_from_video_id: null,
    error: t.status === "failed" ? { code: "generation_failed", message: t.errorMessage ?? "The video could not be generated." } : null,
  };
  if (typeof t.params.aspectRatio === "string") out.aspect_ratio = t.params.aspectRatio;
  return out;
}

export function renderTask(t: TaskRow, opts: { publicBaseUrl?: string } = {}): Record<string, unknown> {
  const completed = t.status === "completed";
  const expiresAt = unix(t.expiresAt);
  const keys = t.mediaKeys ?? [];
  return {
    id: t.id,
    object: "task",
    status: t.status,
    model: t.model,
    progress: t.progress,
    created: unix(t.createdAt),
    completed: t.status === "completed" || t.status === "failed" ? unix(t.completedAt) : null,
    cost: t.status === "failed" ? 0 : microToUsd(t.costMicroUsd),
    result:
      completed && expiresAt !== null
        ? { videos: [{ url: keys.map((_k, i) => signedMediaUrl(t.id, i, expiresAt, opts.publicBaseUrl)), expires_at: expiresAt }] }
        : null,
    error: t.status === "failed" ? { message: t.errorMessage ?? "The video could not be generated." } : null,
  };
}
