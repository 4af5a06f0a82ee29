/**
 * ByteDance Seedance through BytePlus ModelArk (protocol `seedance`), the Ark API key as bearer:
 *   POST {base}/contents/generations/tasks { model, content: [{type:"text", text},
 *        {type:"image_url", image_url:{url}, role: first_frame | last_frame | reference_image}],
 *        ratio, resolution, duration, generate_audio, watermark } → { id }
 *   GET  {base}/contents/generations/tasks/{id} → { id, status: queued | running | succeeded |
 *        failed | cancelled | expired, content: { video_url }, resolution, ratio, duration, error }
 *   GET  content.video_url (valid 24 hours: the worker copies it at completion)
 * {base} is https://ark.ap-southeast.bytepluses.com/api/v3 unless `baseUrl` says otherwise.
 * Seedance reports the resolution and duration it rendered: settlement prices those.
 *
 * Seedance's rules, refused before any hold: 5 or 10 seconds (the second family's 15 is over its
 * 12-second limit); 480p, 720p or 1080p; no negative prompt; reference images not with frames.
 */
import { z } from "zod";
import { badAnswer, errors, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { bearer, callUpstream, postJson, readJson } from "./http";
import { openMedia } from "./media-download";
import { framing, imagesOf, imageUrl, refuse } from "./video-framing";
import type { UpstreamVideo, VideoJob, VideoUpstream } from "./video-types";

export const SEEDANCE_BASE = "https://ark.ap-southeast.bytepluses.com/api/v3";
const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_SECONDS = 12;

const taskSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled", "expired"]).optional(),
  content: z.looseObject({ video_url: z.string().nullish() }).nullish(),
  resolution: z.string().nullish(),
  duration: z.number().nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
type Task = z.infer<typeof taskSchema>;

const base = (route: ModelRoute) => (route.upstream.baseUrl || SEEDANCE_BASE).replace(/\/+$/, "");
const timeoutOf = (route: ModelRoute) => route.upstream.timeoutMs ?? DEFAULT_TIMEOUT_MS;

function prepare(_route: ModelRoute, job: VideoJob) {
  const { aspectRatio, resolution } = framing(job);
  const s = Number(job.seconds);
  if (!Number.isInteger(s) || s < 2 || s > MAX_SECONDS) return refuse("seconds", `Seedance makes videos of at most ${MAX_SECONDS} seconds.`);
  if (resolution && !["480p", "720p", "1080p"].includes(resolution)) return refuse(job.resolution ? "resolution" : "size", "Seedance renders 480p, 720p or 1080p.");
  if (job.negativePrompt) return refuse("negative_prompt", "Seedance takes no negative prompt.");
  if (imagesOf(job, "reference").length && job.images.some((i) => i.role !== "reference")) return refuse("reference_images", "Seedance takes reference images or frames, not both.");
  if (imagesOf(job, "first_frame").length > 1) return refuse("input_reference", "Seedance takes one first frame.");
  if (imagesOf(job, "last_frame").length && !imagesOf(job, "first_frame").length) return refuse("last_frame", "A last frame needs a first frame (`input_reference`).");
  if (job.videoUrl) return refuse("video_url", "Seedance's tasks do not extend videos.");
  return { ok: true as const, value: { ...job, aspectRatio: aspectRatio ?? "16:9", resolution: resolution ?? "720p" } };
}

const ROLES = { first_frame: "first_frame", last_frame: "last_frame", reference: "reference_image" } as const;

function toVideo(t: Task): UpstreamVideo {
  const base = { id: t.id, seconds: t.duration == null ? null : String(t.duration), resolution: t.resolution ?? null, error: null };
  switch (t.status ?? "queued") {
    case "queued":
      return { ...base, status: "queued", progress: 0 };
    case "running":
      return { ...base, status: "in_progress", progress: 50 };
    case "succeeded":
      return t.content?.video_url ? { ...base, status: "completed", progress: 100 } : { ...base, status: "failed", progress: 0, error: "Seedance finished without a video." };
    default:
      return { ...base, status: "failed", progress: 0, error: t.error?.message || `Seedance's task ended ${t.status}.` };
  }
}

async function getTask(route: ModelRoute, id: string, signal?: AbortSignal): Promise<Outcome<Task>> {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return { ok: false, error: errors.upstream("The task's upstream id is malformed.", 404), retryable: false };
  const opened = await callUpstream({ method: "GET", url: `${base(route)}/contents/generations/tasks/${id}`, headers: { accept: "application/json", ...bearer(route.upstream.apiKey) }, signal, timeoutMs: timeoutOf(route), secret: route.upstream.apiKey });
  if (!opened.ok) return opened;
  const json = await readJson(opened.value, signal);
  if (!json.ok) return json;
  const t = taskSchema.safeParse(json.value);
  return t.success ? { ok: true, value: t.data } : badAnswer("The upstream answered without a usable task.");
}

export const seedanceVideo: VideoUpstream = {
  pollIntervalMs: null,
  prepare,

  async create(route, job, signal) {
    const prepared = prepare(route, job);
    if (!prepared.ok) return { ok: false, error: errors.invalidRequest(prepared.error.message, prepared.error.param), retryable: false };
    const j = prepared.value;
    const content: Record<string, unknown>[] = [{ type: "text", text: j.prompt }];
    for (const img of j.images) content.push({ type: "image_url", image_url: { url: imageUrl(img) }, role: ROLES[img.role ?? "first_frame"] });
    const body: Record<string, unknown> = { model: route.upstreamModel, content, ratio: j.aspectRatio, resolution: j.resolution, duration: Number(j.seconds), watermark: false };
    if (j.audio != null) body.generate_audio = j.audio;
    const r = await postJson({ url: `${base(route)}/contents/generations/tasks`, headers: bearer(route.upstream.apiKey), body, signal, timeoutMs: timeoutOf(route), secret: route.upstream.apiKey });
    if (!r.ok) return r;
    const t = taskSchema.safeParse(r.value);
    if (!t.success || !/^[A-Za-z0-9_-]+$/.test(t.data.id)) return badAnswer("The upstream answered without a task id.");
    return { ok: true, value: { id: t.data.id, status: "queued", progress: 0, seconds: null, error: null } };
  },

  async get(route, id, signal) {
    const t = await getTask(route, id, signal);
    return t.ok ? { ok: true, value: toVideo(t.value) } : t;
  },

  async content(route, id, signal) {
    const t = await getTask(route, id, signal);
    if (!t.ok) return t;
    const url = t.value.content?.video_url;
    if (!url) return badAnswer("The upstream's task has no video to download.");
    return openMedia(url, { signal });
  },
};
