/**
 * Kling (protocol `kling`), with a JWT signed by the account's secret key (HS256; iss = the
 * access key, 30 minutes, nbf 5 s back) as the bearer:
 *   POST {base}/v1/videos/text2video  { model_name, prompt, negative_prompt, mode, aspect_ratio, duration, sound }
 *   POST {base}/v1/videos/image2video { model_name, image, image_tail, prompt, negative_prompt, mode, duration, sound }
 *        → { code: 0, message, request_id, data: { task_id, task_status: "submitted" } }
 *   GET  {base}/v1/videos/{text2video|image2video}/{task_id}
 *        → data.task_status submitted | processing | succeed | failed (task_status_msg),
 *          data.task_result.videos[] { id, url, duration }
 *   GET  the video's url (Kling's CDN; it expires, so the worker copies it at completion)
 * {base} is https://api-singapore.klingai.com unless `baseUrl` says otherwise. Our upstream task id
 * is `{endpoint}:{task_id}`: the poll goes to the endpoint that made it.
 *
 * Kling's rules, refused before any hold: 5 or 10 seconds; 16:9, 9:16 or 1:1; resolution 720p
 * (mode `std`) or 1080p (mode `pro`); one first frame and one last frame (`image_tail`), no
 * reference images; an image-to-video takes the first frame's framing, so `aspect_ratio` is not sent.
 */
import { createHmac } from "node:crypto";
import { z } from "zod";
import { badAnswer, errors, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { callUpstream, postJson, readJson } from "./http";
import { openMedia } from "./media-download";
import { fieldOf, framing, imagesOf, refuse } from "./video-framing";
import type { UpstreamVideo, VideoJob, VideoUpstream } from "./video-types";

export const KLING_BASE = "https://api-singapore.klingai.com";
const DEFAULT_TIMEOUT_MS = 60_000;
const TOKEN_LIFETIME_S = 1800;
const MODES: Record<string, string> = { "720p": "std", "1080p": "pro" };

/** The API token: HS256 over {iss: access key, exp: +30 min, nbf: -5 s}. */
export function klingToken(accessKey: string, secretKey: string, nowS = Math.floor(Date.now() / 1000)): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const unsigned = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ iss: accessKey, exp: nowS + TOKEN_LIFETIME_S, nbf: nowS - 5 })}`;
  return `${unsigned}.${createHmac("sha256", secretKey).update(unsigned).digest("base64url")}`;
}

function auth(route: ModelRoute): Outcome<Record<string, string>> {
  const c = route.upstream.credentials;
  if (!c?.accessKeyId || !c.secretAccessKey) return { ok: false, error: errors.upstream("The Kling upstream has no access key and secret key."), retryable: false, failover: true };
  return { ok: true, value: { authorization: `Bearer ${klingToken(c.accessKeyId, c.secretAccessKey)}` } };
}

const taskSchema = z.looseObject({
  code: z.number(),
  message: z.string().nullish(),
  data: z
    .looseObject({
      task_id: z.string().min(1),
      task_status: z.enum(["submitted", "processing", "succeed", "failed"]),
      task_status_msg: z.string().nullish(),
      task_result: z.looseObject({ videos: z.array(z.looseObject({ url: z.string(), duration: z.union([z.string(), z.number()]).nullish() })).nullish() }).nullish(),
    })
    .nullish(),
});
type Task = NonNullable<z.infer<typeof taskSchema>["data"]>;

const base = (route: ModelRoute) => (route.upstream.baseUrl || KLING_BASE).replace(/\/+$/, "");
const timeoutOf = (route: ModelRoute) => route.upstream.timeoutMs ?? DEFAULT_TIMEOUT_MS;

function prepare(_route: ModelRoute, job: VideoJob) {
  const { aspectRatio, resolution } = framing(job);
  if (job.seconds !== "5" && job.seconds !== "10") return refuse("seconds", 'Kling makes videos of "5" or "10" seconds.');
  if (aspectRatio && !["16:9", "9:16", "1:1"].includes(aspectRatio)) return refuse(job.aspectRatio ? "aspect_ratio" : "size", "Kling renders 16:9, 9:16 or 1:1.");
  if (resolution && !MODES[resolution]) return refuse(job.resolution ? "resolution" : "size", "Kling renders 720p (standard mode) or 1080p (professional mode).");
  if (imagesOf(job, "reference").length) return refuse(fieldOf("reference"), "Kling's video endpoints take no reference images.");
  if (imagesOf(job, "first_frame").length > 1) return refuse(fieldOf("first_frame"), "Kling takes one first frame.");
  if (imagesOf(job, "last_frame").length && !imagesOf(job, "first_frame").length) return refuse("last_frame", "A last frame needs a first frame (`input_reference`).");
  if (job.videoUrl) return refuse("video_url", "Kling's video endpoints do not extend videos.");
  return { ok: true as const, value: { ...job, aspectRatio: aspectRatio ?? "16:9", resolution: resolution ?? "720p" } };
}

/** Kling takes an image as a URL or as bare base64 (no data: prefix). */
const klingImage = (img: VideoJob["images"][number]) => (img.kind === "url" ? img.url : img.base64);

function toVideo(endpoint: string, t: Task): UpstreamVideo {
  const id = `${endpoint}:${t.task_id}`;
  if (t.task_status === "failed") return { id, status: "failed", progress: 0, seconds: null, error: t.task_status_msg || "Kling failed to generate the video." };
  if (t.task_status !== "succeed") return { id, status: t.task_status === "submitted" ? "queued" : "in_progress", progress: t.task_status === "submitted" ? 0 : 50, seconds: null, error: null };
  const v = t.task_result?.videos?.[0];
  if (!v) return { id, status: "failed", progress: 0, seconds: null, error: "Kling finished without a video." };
  return { id, status: "completed", progress: 100, seconds: v.duration == null ? null : String(v.duration), error: null };
}

async function readTask(opened: Awaited<ReturnType<typeof callUpstream>>, signal?: AbortSignal): Promise<Outcome<Task>> {
  if (!opened.ok) return opened;
  const json = await readJson(opened.value, signal);
  return json.ok ? parseTask(json.value) : json;
}

function parseTask(v: unknown): Outcome<Task> {
  const r = taskSchema.safeParse(v);
  if (!r.success) return badAnswer("The upstream answered without a usable task.");
  if (r.data.code !== 0 || !r.data.data) return { ok: false, error: errors.upstream(`Kling refused the task: ${r.data.message ?? r.data.code}`), retryable: false };
  return { ok: true, value: r.data.data };
}

function splitId(id: string): { endpoint: string; taskId: string } | null {
  const m = /^(text2video|image2video):([A-Za-z0-9_-]+)$/.exec(id);
  return m ? { endpoint: m[1]!, taskId: m[2]! } : null;
}

async function poll(route: ModelRoute, id: string, signal?: AbortSignal): Promise<Outcome<{ endpoint: string; task: Task }>> {
  const parts = splitId(id);
  if (!parts) return { ok: false, error: errors.upstream("The task's upstream id is malformed.", 404), retryable: false };
  const a = auth(route);
  if (!a.ok) return a;
  const task = await readTask(
    await callUpstream({ method: "GET", url: `${base(route)}/v1/videos/${parts.endpoint}/${parts.taskId}`, headers: { accept: "application/json", ...a.value }, signal, timeoutMs: timeoutOf(route) }),
    signal,
  );
  return task.ok ? { ok: true, value: { endpoint: parts.endpoint, task: task.value } } : task;
}

export const klingVideo: VideoUpstream = {
  pollIntervalMs: null,
  prepare,

  async create(route, job, signal) {
    const prepared = prepare(route, job);
    if (!prepared.ok) return { ok: false, error: errors.invalidRequest(prepared.error.message, prepared.error.param), retryable: false };
    const j = prepared.value;
    const a = auth(route);
    if (!a.ok) return a;
    const [first] = imagesOf(j, "first_frame");
    const [last] = imagesOf(j, "last_frame");
    const endpoint = first ? "image2video" : "text2video";
    const body: Record<string, unknown> = { model_name: route.upstreamModel, prompt: j.prompt, mode: MODES[j.resolution!], duration: j.seconds };
    if (first) body.image = klingImage(first);
    else body.aspect_ratio = j.aspectRatio;
    if (last) body.image_tail = klingImage(last);
    if (j.negativePrompt) body.negative_prompt = j.negativePrompt;
    if (j.audio != null) body.sound = j.audio ? "on" : "off";
    const r = await postJson({ url: `${base(route)}/v1/videos/${endpoint}`, headers: a.value, body, signal, timeoutMs: timeoutOf(route) });
    if (!r.ok) return r;
    const task = parseTask(r.value);
    return task.ok ? { ok: true, value: toVideo(endpoint, task.value) } : task;
  },

  async get(route, id, signal) {
    const r = await poll(route, id, signal);
    return r.ok ? { ok: true, value: toVideo(r.value.endpoint, r.value.task) } : r;
  },

  async content(route, id, signal) {
    const r = await poll(route, id, signal);
    if (!r.ok) return r;
    const url = r.value.task.task_result?.videos?.[0]?.url;
    if (!url) return badAnswer("The upstream's task has no video to download.");
    // Kling's CDN link carries its own authorisation: no token goes with it.
    return openMedia(url, { signal });
  },
};
