/**
 * The OpenAI videos API as an upstream (protocol `openai-video`):
 *   POST {baseUrl}/videos (multipart, as the official SDK sends it) → Video
 *   GET  {baseUrl}/videos/{id} → Video
 *   GET  {baseUrl}/videos/{id}/content → MP4 bytes, streamed
 * @see /work/shared/reference/media.md "Videos API"
 *
 * Fields beyond the OpenAI shape (aspect_ratio, video_url, several images) are passed as
 * extra form fields for upstreams of the other families; OpenAI itself takes one
 * `input_reference`, which is what a single image becomes.
 */
import { Readable } from "node:stream";
import { FormData, request } from "undici";
import { z } from "zod";
import { errors } from "../errors";
import type { UpstreamFailure, UpstreamVideo, VideoJob, VideoOutcome, VideoRoute, VideoUpstream } from "./video-types";

const DEFAULT_TIMEOUT_MS = 60_000;
/** Downloading the finished MP4 may take longer than an API call. */
const CONTENT_TIMEOUT_MS = 10 * 60_000;

const videoSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(["queued", "in_progress", "completed", "failed"]),
  progress: z.number().nullish(),
  seconds: z.union([z.string(), z.number()]).nullish(),
  error: z.looseObject({ message: z.string().nullish(), code: z.string().nullish() }).nullish(),
});

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path}`;
}

function authHeaders(route: VideoRoute): Record<string, string> {
  return route.upstream.apiKey ? { authorization: `Bearer ${route.upstream.apiKey}` } : {};
}

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

function fail(error: UpstreamFailure["error"], retryable: boolean): UpstreamFailure {
  return { ok: false, error, retryable };
}

/** An upstream's own 4xx comes back with its status and message, never its URL or credentials. */
function statusFailure(status: number, text: string): UpstreamFailure {
  let message = `The upstream answered ${status}.`;
  try {
    const m = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof m === "string" && m) message = `Upstream error: ${m.slice(0, 500)}`;
  } catch {
    // not JSON: keep the generic message
  }
  if (status === 429 || status >= 500) return fail(errors.upstream(message), true);
  return fail(errors.upstream(message, status), status === 408);
}

interface CallInput {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: FormData;
  timeoutMs: number;
  signal?: AbortSignal;
}

async function call(input: CallInput): Promise<{ ok: true; status: number; body: Readable & AsyncIterable<Buffer>; headers: Record<string, unknown> } | UpstreamFailure> {
  const signals = [AbortSignal.timeout(input.timeoutMs), ...(input.signal ? [input.signal] : [])];
  const signal = AbortSignal.any(signals);
  try {
    const res = await request(input.url, {
      method: input.method,
      headers: input.headers,
      body: input.body,
      signal,
      headersTimeout: input.timeoutMs + 1000,
      bodyTimeout: input.timeoutMs + 1000,
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const text = await res.body.text().catch(() => "");
      return statusFailure(res.statusCode, text);
    }
    return { ok: true, status: res.statusCode, body: res.body as unknown as Readable & AsyncIterable<Buffer>, headers: res.headers };
  } catch {
    if (signals[0]!.aborted) return fail(errors.upstreamTimeout(), true);
    if (input.signal?.aborted) return fail(errors.upstream("The call was cancelled.", 499), false);
    return fail(errors.upstream("The upstream could not be reached."), true);
  }
}

async function readVideo(res: { body: AsyncIterable<Buffer> }): Promise<VideoOutcome<UpstreamVideo>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res.body) {
    size += c.length;
    if (size > 1024 * 1024) return fail(errors.upstream("The upstream answer was too large."), true);
    chunks.push(c);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return fail(errors.upstream("The upstream answered with invalid JSON."), true);
  }
  const parsed = videoSchema.safeParse(json);
  if (!parsed.success) return fail(errors.upstream("The upstream answered without a usable video object."), true);
  return { ok: true, value: toUpstreamVideo(parsed.data) };
}

function createForm(route: VideoRoute, job: VideoJob): FormData {
  const form = new FormData();
  form.append("model", route.upstreamModel);
  form.append("prompt", job.prompt);
  if (job.seconds !== null) form.append("seconds", job.seconds);
  if (job.size !== null) form.append("size", job.size);
  if (job.aspectRatio !== null) form.append("aspect_ratio", job.aspectRatio);
  if (job.videoUrl !== null) form.append("video_url", job.videoUrl);
  const field = job.images.length === 1 ? "input_reference" : "images[]";
  for (const img of job.images) {
    if (img.kind === "url") form.append(job.images.length === 1 ? "input_reference[image_url]" : "images[]", img.url);
    else form.append(field, new Blob([Buffer.from(img.base64, "base64")], { type: img.mimeType }), img.filename);
  }
  return form;
}

function timeoutOf(route: VideoRoute): number {
  return route.upstream.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

export const openaiVideo: VideoUpstream = {
  pollIntervalMs: null,

  async create(route, job, signal) {
    const res = await call({
      method: "POST",
      url: joinUrl(route.upstream.baseUrl, "videos"),
      headers: { accept: "application/json", ...authHeaders(route) },
      body: createForm(route, job),
      timeoutMs: timeoutOf(route),
      signal,
    });
    return res.ok ? readVideo(res) : res;
  },

  async get(route, upstreamTaskId, signal) {
    const res = await call({
      method: "GET",
      url: joinUrl(route.upstream.baseUrl, `videos/${encodeURIComponent(upstreamTaskId)}`),
      headers: { accept: "application/json", ...authHeaders(route) },
      timeoutMs: timeoutOf(route),
      signal,
    });
    return res.ok ? readVideo(res) : res;
  },

  async content(route, upstreamTaskId, signal) {
    const res = await call({
      method: "GET",
      url: joinUrl(route.upstream.baseUrl, `videos/${encodeURIComponent(upstreamTaskId)}/content`),
      headers: { accept: "application/binary", ...authHeaders(route) },
      timeoutMs: Math.max(CONTENT_TIMEOUT_MS, timeoutOf(route)),
      signal,
    });
    if (!res.ok) return res;
    return { ok: true, value: { body: res.body, contentType: String(res.headers["content-type"] ?? "video/mp4") } };
  },
};
