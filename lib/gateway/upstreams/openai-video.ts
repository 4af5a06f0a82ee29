/**
 * The OpenAI videos API as an upstream (protocol `openai-video`):
 *   POST {baseUrl}/videos (multipart, as the official SDK sends it) → Video
 *   GET  {baseUrl}/videos/{id} → Video
 *   GET  {baseUrl}/videos/{id}/content → MP4 bytes, streamed
 * @see OpenAI's Videos API reference (create, retrieve, content)
 *
 * Fields beyond the OpenAI shape (aspect_ratio, video_url, several images) are passed as
 * extra form fields for upstreams of the other families; OpenAI itself takes one
 * `input_reference`, which is what a single image becomes.
 */
import { FormData } from "undici";
import { z } from "zod";
import { badAnswer, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { bearer, callUpstream, joinUrl, readJson, type UpstreamCall } from "./http";
import type { UpstreamVideo, VideoJob, VideoUpstream } from "./video-types";
import { refuse } from "./video-framing";

const DEFAULT_TIMEOUT_MS = 60_000;
/** Downloading the finished MP4 may take longer than an API call. */
const CONTENT_TIMEOUT_MS = 10 * 60_000;
/** A Video object is a few hundred bytes. */
const MAX_VIDEO_JSON_BYTES = 1024 * 1024;

const videoSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(["queued", "in_progress", "completed", "failed"]),
  progress: z.number().nullish(),
  seconds: z.union([z.string(), z.number()]).nullish(),
  error: z.looseObject({ message: z.string().nullish(), code: z.string().nullish() }).nullish(),
});

function toUpstreamVideo(v: z.infer<typeof videoSchema>): UpstreamVideo {
  const progress = Math.max(0, Math.min(100, Math.round(v.progress ?? (v.status === "completed" ? 100 : 0))));
  return {
    id: v.id,
    status: v.status,
    progress,
    seconds: v.seconds == null ? null : String(v.seconds),
    error: v.status === "failed" ? (v.error?.message ?? v.error?.code ?? "The upstream reported a failure without a reason.") : null,
  };
}

/** One call to the videos API through the shared upstream core (http.ts), failures classified there. */
function call(route: ModelRoute, input: Pick<UpstreamCall, "method" | "body" | "signal"> & { path: string; accept: string; timeoutMs?: number }) {
  return callUpstream({
    method: input.method,
    url: joinUrl(route.upstream.baseUrl, input.path),
    headers: { accept: input.accept, ...bearer(route.upstream.apiKey) },
    body: input.body,
    signal: input.signal,
    timeoutMs: input.timeoutMs ?? timeoutOf(route),
    secret: route.upstream.apiKey,
  });
}

async function readVideo(opened: Awaited<ReturnType<typeof call>>, signal?: AbortSignal): Promise<Outcome<UpstreamVideo>> {
  if (!opened.ok) return opened;
  const json = await readJson(opened.value, signal, MAX_VIDEO_JSON_BYTES);
  if (!json.ok) return json;
  const parsed = videoSchema.safeParse(json.value);
  if (!parsed.success) return badAnswer("The upstream answered without a usable video object.");
  return { ok: true, value: toUpstreamVideo(parsed.data) };
}

function createForm(route: ModelRoute, job: VideoJob): FormData {
  const form = new FormData();
  form.append("model", route.upstreamModel);
  form.append("prompt", job.prompt);
  if (job.seconds !== null) form.append("seconds", job.seconds);
  if (job.size !== null) form.append("size", job.size);
  if (job.aspectRatio !== null) form.append("aspect_ratio", job.aspectRatio);
  if (job.videoUrl !== null) form.append("video_url", job.videoUrl);
  // The other families' knobs travel as extra fields, as aspect_ratio does.
  if (job.size === null && job.resolution) form.append("resolution", job.resolution);
  if (job.negativePrompt) form.append("negative_prompt", job.negativePrompt);
  if (job.audio != null) form.append("generate_audio", String(job.audio));
  const field = job.images.length === 1 ? "input_reference" : "images[]";
  for (const img of job.images) {
    if (img.kind === "url") form.append(job.images.length === 1 ? "input_reference[image_url]" : "images[]", img.url);
    else form.append(field, new Blob([Buffer.from(img.base64, "base64")], { type: img.mimeType }), img.filename);
  }
  return form;
}

function timeoutOf(route: ModelRoute): number {
  return route.upstream.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

export const openaiVideo: VideoUpstream = {
  pollIntervalMs: null,

  /** The Videos API has one image field: a last frame or reference images cannot be told apart in it. */
  prepare(_route, job) {
    const other = job.images.find((i) => i.role === "last_frame" || i.role === "reference");
    if (other) return refuse(other.role === "last_frame" ? "last_frame" : "reference_images", "This model's upstream takes no last frame or reference images.");
    return { ok: true, value: job };
  },

  async create(route, job, signal) {
    return readVideo(await call(route, { method: "POST", path: "videos", accept: "application/json", body: createForm(route, job), signal }), signal);
  },

  async get(route, upstreamTaskId, signal) {
    return readVideo(await call(route, { method: "GET", path: `videos/${encodeURIComponent(upstreamTaskId)}`, accept: "application/json", signal }), signal);
  },

  async content(route, upstreamTaskId, signal) {
    const res = await call(route, {
      method: "GET",
      path: `videos/${encodeURIComponent(upstreamTaskId)}/content`,
      accept: "application/binary",
      timeoutMs: Math.max(CONTENT_TIMEOUT_MS, timeoutOf(route)),
      signal,
    });
    if (!res.ok) return res;
    return { ok: true, value: { body: res.value.body, contentType: String(res.value.headers["content-type"] ?? "video/mp4") } };
  },
};
