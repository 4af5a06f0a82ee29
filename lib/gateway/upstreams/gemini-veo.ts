/**
 * Veo through the Gemini API (protocol `gemini-veo`), with the key in `x-goog-api-key`:
 *   POST {base}/v1beta/models/{m}:predictLongRunning → { name: "models/{m}/operations/{id}" }
 *   GET  {base}/v1beta/{name} → the operation; when done, `response.generateVideoResponse
 *        .generatedSamples[].video.uri` (or `error`, or `raiMediaFilteredCount` with reasons)
 *   GET  {uri} with the key → the MP4 (Google redirects to its storage, which gets no key)
 * {base} is https://generativelanguage.googleapis.com unless `baseUrl` says otherwise. The
 * operation name is the task's upstream id. Google keeps the file two days; the worker copies it
 * into our media storage at completion.
 */
import { z } from "zod";
import { badAnswer, errors, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { callUpstream, readJson, postJson } from "./http";
import { openMedia } from "./media-download";
import { prepareVeo, veoBody, veoFailure } from "./veo-request";
import type { UpstreamVideo, VideoUpstream } from "./video-types";

export const GEMINI_VEO_BASE = "https://generativelanguage.googleapis.com";
const DEFAULT_TIMEOUT_MS = 60_000;

const operationSchema = z.looseObject({
  name: z.string().min(1),
  done: z.boolean().nullish(),
  error: z.looseObject({ code: z.number().nullish(), message: z.string().nullish() }).nullish(),
  response: z
    .looseObject({
      generateVideoResponse: z
        .looseObject({
          generatedSamples: z.array(z.looseObject({ video: z.looseObject({ uri: z.string().nullish() }).nullish() })).nullish(),
          raiMediaFilteredCount: z.number().nullish(),
          raiMediaFilteredReasons: z.array(z.string()).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});
type Operation = z.infer<typeof operationSchema>;

const base = (route: ModelRoute) => (route.upstream.baseUrl || GEMINI_VEO_BASE).replace(/\/+$/, "");
const keyHeader = (route: ModelRoute): Record<string, string> => (route.upstream.apiKey ? { "x-goog-api-key": route.upstream.apiKey } : {});
const timeoutOf = (route: ModelRoute) => route.upstream.timeoutMs ?? DEFAULT_TIMEOUT_MS;

/** An operation name is ours to put in a path only as Google shapes it. */
const OPERATION_NAME = /^models\/[A-Za-z0-9._-]+\/operations\/[A-Za-z0-9._-]+$/;

async function getOperation(route: ModelRoute, name: string, signal?: AbortSignal): Promise<Outcome<Operation>> {
  if (!OPERATION_NAME.test(name)) return { ok: false, error: errors.upstream("The task's upstream operation name is malformed.", 404), retryable: false };
  const opened = await callUpstream({ method: "GET", url: `${base(route)}/v1beta/${name}`, headers: { accept: "application/json", ...keyHeader(route) }, signal, timeoutMs: timeoutOf(route), secret: route.upstream.apiKey });
  if (!opened.ok) return opened;
  const json = await readJson(opened.value, signal);
  if (!json.ok) return json;
  const op = operationSchema.safeParse(json.value);
  return op.success ? { ok: true, value: op.data } : badAnswer("The upstream answered without a usable operation.");
}

function toVideo(op: Operation): UpstreamVideo {
  if (!op.done) return { id: op.name, status: "in_progress", progress: 0, seconds: null, error: null };
  const res = op.response?.generateVideoResponse ?? undefined;
  const failure = veoFailure(op, res);
  const uri = res?.generatedSamples?.[0]?.video?.uri;
  if (failure || !uri) return { id: op.name, status: "failed", progress: 0, seconds: null, error: failure ?? "Veo finished without a video." };
  // The Gemini API reports neither duration nor resolution: what was asked is what is billed.
  return { id: op.name, status: "completed", progress: 100, seconds: null, error: null };
}

export const geminiVeo: VideoUpstream = {
  pollIntervalMs: null,

  prepare: (route, job) => prepareVeo(route, job, "gemini"),

  async create(route, job, signal) {
    const prepared = prepareVeo(route, job, "gemini");
    if (!prepared.ok) return { ok: false, error: errors.invalidRequest(prepared.error.message, prepared.error.param), retryable: false };
    const r = await postJson({
      url: `${base(route)}/v1beta/models/${encodeURIComponent(route.upstreamModel)}:predictLongRunning`,
      headers: keyHeader(route),
      body: veoBody(route.upstreamModel, prepared.value, "gemini"),
      signal,
      timeoutMs: timeoutOf(route),
      secret: route.upstream.apiKey,
    });
    if (!r.ok) return r;
    const op = operationSchema.safeParse(r.value);
    if (!op.success || !OPERATION_NAME.test(op.data.name)) return badAnswer("The upstream answered without an operation name.");
    return { ok: true, value: { ...toVideo(op.data), status: op.data.done ? toVideo(op.data).status : "queued" } };
  },

  async get(route, id, signal) {
    const op = await getOperation(route, id, signal);
    return op.ok ? { ok: true, value: toVideo(op.value) } : op;
  },

  async content(route, id, signal) {
    const op = await getOperation(route, id, signal);
    if (!op.ok) return op;
    const uri = op.value.response?.generateVideoResponse?.generatedSamples?.[0]?.video?.uri;
    if (!uri) return badAnswer("The upstream's operation has no video to download.");
    // The key goes only to the API's own origin (openMedia drops it on a redirect elsewhere).
    const sameOrigin = URL.canParse(uri) && new URL(uri).origin === new URL(base(route)).origin;
    return openMedia(uri, { headers: sameOrigin ? keyHeader(route) : {}, signal, secret: route.upstream.apiKey });
  },
};
