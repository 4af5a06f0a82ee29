/**
 * Veo through Vertex AI (protocol `vertex-veo`), in the upstream's `project` and `region`, with
 * the service account's OAuth token (google-sa-token.ts, as the `vertex` upstream):
 *   POST {base}/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:predictLongRunning
 *        → { name: "projects/…/operations/{id}" }
 *   POST …/models/{m}:fetchPredictOperation { operationName } → the operation; when done,
 *        `response.videos[]` with `bytesBase64Encoded` (no storageUri is sent, so Vertex answers
 *        the video inline), or `error`, or `raiMediaFilteredCount` with reasons
 * {base} as for `vertex` (vertexBaseUrl). The operation name is the task's upstream id.
 *
 * The inline answer is the one place a whole video passes through memory (Veo's are 8 seconds,
 * a few MB): the content is decoded from the finished operation and streamed into media storage.
 */
import { Readable } from "node:stream";
import { z } from "zod";
import { badAnswer, errors, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { googleToken } from "./google-sa-token";
import { postJson } from "./http";
import { prepareVeo, veoBody, veoFailure } from "./veo-request";
import { vertexBaseUrl } from "./vertex";
import type { UpstreamVideo, VideoUpstream } from "./video-types";

const DEFAULT_TIMEOUT_MS = 60_000;
/** A finished operation carries the MP4 in base64. */
const MAX_OPERATION_BYTES = 256 * 1024 * 1024;

const operationSchema = z.looseObject({
  name: z.string().min(1),
  done: z.boolean().nullish(),
  error: z.looseObject({ code: z.number().nullish(), message: z.string().nullish() }).nullish(),
  response: z
    .looseObject({
      videos: z.array(z.looseObject({ bytesBase64Encoded: z.string().nullish(), gcsUri: z.string().nullish(), mimeType: z.string().nullish() })).nullish(),
      raiMediaFilteredCount: z.number().nullish(),
      raiMediaFilteredReasons: z.array(z.string()).nullish(),
    })
    .nullish(),
});
type Operation = z.infer<typeof operationSchema>;

const OPERATION_NAME = /^projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/[^/]+\/operations\/[A-Za-z0-9._-]+$/;

function modelUrl(route: ModelRoute, method: string): string {
  const s = route.upstream.settings ?? {};
  return `${vertexBaseUrl(route.upstream)}/v1/projects/${encodeURIComponent(s.project ?? "")}/locations/${encodeURIComponent(s.region ?? "us-central1")}/publishers/google/models/${encodeURIComponent(route.upstreamModel)}:${method}`;
}

async function post(route: ModelRoute, method: string, body: unknown, signal?: AbortSignal, maxBytes?: number): Promise<Outcome<Operation>> {
  const token = await googleToken(route.upstream, signal);
  if (!token.ok) return token;
  const r = await postJson({
    url: modelUrl(route, method),
    headers: { authorization: `Bearer ${token.value}` },
    body,
    signal,
    timeoutMs: route.upstream.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    secret: token.value,
    maxBytes,
  });
  if (!r.ok) return r;
  const op = operationSchema.safeParse(r.value);
  return op.success ? { ok: true, value: op.data } : badAnswer("The upstream answered without a usable operation.");
}

function fetchOperation(route: ModelRoute, name: string, signal?: AbortSignal): Promise<Outcome<Operation>> {
  if (!OPERATION_NAME.test(name)) return Promise.resolve({ ok: false, error: errors.upstream("The task's upstream operation name is malformed.", 404), retryable: false });
  return post(route, "fetchPredictOperation", { operationName: name }, signal, MAX_OPERATION_BYTES);
}

function toVideo(op: Operation): UpstreamVideo {
  if (!op.done) return { id: op.name, status: "in_progress", progress: 0, seconds: null, error: null };
  const failure = veoFailure(op, op.response ?? undefined);
  const video = op.response?.videos?.[0];
  if (failure || !video?.bytesBase64Encoded) return { id: op.name, status: "failed", progress: 0, seconds: null, error: failure ?? "Veo finished without a video." };
  return { id: op.name, status: "completed", progress: 100, seconds: null, error: null };
}

export const vertexVeo: VideoUpstream = {
  pollIntervalMs: null,

  prepare: (route, job) => prepareVeo(route, job, "vertex"),

  async create(route, job, signal) {
    const prepared = prepareVeo(route, job, "vertex");
    if (!prepared.ok) return { ok: false, error: errors.invalidRequest(prepared.error.message, prepared.error.param), retryable: false };
    const op = await post(route, "predictLongRunning", veoBody(route.upstreamModel, prepared.value, "vertex"), signal);
    if (!op.ok) return op;
    if (!OPERATION_NAME.test(op.value.name)) return badAnswer("The upstream answered without an operation name.");
    return { ok: true, value: { id: op.value.name, status: "queued", progress: 0, seconds: null, error: null } };
  },

  async get(route, id, signal) {
    const op = await fetchOperation(route, id, signal);
    return op.ok ? { ok: true, value: toVideo(op.value) } : op;
  },

  async content(route, id, signal) {
    const op = await fetchOperation(route, id, signal);
    if (!op.ok) return op;
    const video = op.value.response?.videos?.[0];
    if (!video?.bytesBase64Encoded) return badAnswer("The upstream's operation has no video.");
    return { ok: true, value: { body: Readable.from([Buffer.from(video.bytesBase64Encoded, "base64")]), contentType: video.mimeType ?? "video/mp4" } };
  },
};
