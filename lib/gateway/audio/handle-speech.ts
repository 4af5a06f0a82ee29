/**
 * POST /v1/audio/speech: hold the worst case of the input (its characters, or the longest audio
 * it can become), open the upstream (failing over until one answers), then stream the audio to
 * the client as it arrives — raw bytes, or OpenAI's `speech.audio.delta` events for
 * `stream_format: "sse"`. When the audio has ended, its duration is decoded and the port
 * settles what was produced (characters, seconds or the reported tokens: audio-price.ts) with
 * the one log row; an upstream failure mid-stream refunds the hold (decision 0056).
 */
import type { Settled } from "../../billing/port";
import { formatUsd } from "../../billing/money";
import type { ApiError, RequestRefusal } from "../errors";
import type { GatewayResponse } from "../http";
import type { ModelRoute } from "../model-route";
import type { RouteContext } from "../types";
import { speechWithUpstream } from "../upstreams/audio-upstream";
import { brokenStream, openAudio } from "./open-audio";
import { audioDurationMs } from "./audio-duration";
import { audioCharge, speechHoldMicro, speechTokenBound } from "./audio-price";
import type { SpeechFormat, SpeechRequest, SpeechStream } from "../media/audio-types";
import { parseSpeechRequest } from "./speech-request";
import type { Ok, Result } from "../../result";

export const SPEECH_ROUTE = "/v1/audio/speech";

export const SPEECH_CONTENT_TYPE: Record<SpeechFormat, string> = { mp3: "audio/mpeg", opus: "audio/ogg", aac: "audio/aac", flac: "audio/flac", wav: "audio/wav", pcm: "audio/pcm" };
/** Audio kept to decode its duration; more is streamed but not kept (4096 characters of WAV is ~15 MB). */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;

export async function handleSpeech(ctx: RouteContext): Promise<GatewayResponse> {
  const opened = await openSpeech(ctx, SPEECH_ROUTE, async (body) => {
    const parsed = parseSpeechRequest(body);
    const named = (body as { model?: unknown } | null)?.model;
    return parsed.ok ? parsed : { ok: false, error: parsed.error, model: typeof named === "string" ? named : null };
  });
  if (!opened.ok) return opened.error;
  const { req, speech, finish, failed, headers } = opened.value;
  Object.assign(headers, { "content-type": req.streamFormat === "sse" ? "text/event-stream" : SPEECH_CONTENT_TYPE[req.format], "cache-control": "no-cache" });
  return { status: 200, headers, body: streamSpeech(speech, req.streamFormat === "sse", ctx.req.signal, finish, failed) };
}

export type SpeechEnd = "completed" | "client_disconnect";

export interface OpenedSpeech {
  req: SpeechRequest;
  speech: SpeechStream;
  /** Settles what was produced (the audio kept, decoded here) with the one log row. */
  finish(kept: Buffer | null, end: SpeechEnd): Promise<Settled>;
  /** Settles a stream that broke: nothing charged. */
  failed(err: unknown): Promise<Settled>;
  route: ModelRoute;
  /** Rate-limit headers and x-gateway-model for the answer. */
  headers: Record<string, string>;
}

/** A speech request up to its first byte, for every speech wire format (open-audio.ts), and how it settles. */
export async function openSpeech(
  ctx: RouteContext,
  routePath: string,
  parse: (body: unknown) => Promise<Ok<SpeechRequest> | RequestRefusal>,
): Promise<Result<OpenedSpeech, GatewayResponse>> {
  const opened = await openAudio<SpeechRequest, SpeechStream>(ctx, {
    route: routePath,
    kind: "speech",
    async parse(ctx) {
      const body = await ctx.readJson();
      if (!body.ok) return { ok: false, error: body.error, model: null };
      const parsed = await parse(body.value);
      return parsed.ok ? { ok: true, value: { req: parsed.value, model: parsed.value.model } } : parsed;
    },
    holdFor: (req, routes) => ({ ok: true, value: { holdMicroUsd: Math.max(...routes.map((r) => speechHoldMicro(req.input, r.price))), tokens: Buffer.byteLength(req.input, "utf8") } }),
    logBase: (req) => ({ stream: true, inputCharacters: [...req.input].length }),
    call: (route, req, signal) => speechWithUpstream(route, req, signal),
  });
  if (!opened.ok) return opened;
  const { req, out: speech, route, settle, headers } = opened.value;
  return {
    ok: true,
    value: {
      req,
      speech,
      route,
      headers,
      async finish(kept, end) {
        const audioMs = kept ? await audioDurationMs(kept, SPEECH_CONTENT_TYPE[speech.format], speech.format) : null;
        const c = audioCharge(route.price, { characters: [...req.input].length, audioMs, usage: speech.usage(), bound: speechTokenBound(req.input, (audioMs ?? 0) / 1000) });
        return settle(c.costMicroUsd, Object.assign(c.log, { status: 200, settlement: c.estimated && end === "completed" ? "completed_estimated" : end }));
      },
      failed: (err) => settle(0, brokenStream(err)),
    },
  };
}

/**
 * The audio to the client as it comes, then the settlement. Leaving early (the client went
 * away) still settles, in `finally`; a broken upstream stream is refunded and, on SSE, told.
 */
async function* streamSpeech(
  s: SpeechStream,
  sse: boolean,
  signal: AbortSignal,
  finish: (kept: Buffer | null, end: SpeechEnd) => Promise<Settled>,
  failed: (err: unknown) => Promise<Settled>,
): AsyncGenerator<string | Uint8Array> {
  const kept: Buffer[] = [];
  let size = 0;
  let state: "streaming" | "ended" | "broken" = "streaming";
  let settled: Settled | null = null;
  let failure: unknown;
  try {
    try {
      for await (const chunk of s.audio) {
        if ((size += chunk.length) <= MAX_KEPT_BYTES) kept.push(chunk);
        yield sse ? event({ type: "speech.audio.delta", audio: Buffer.from(chunk).toString("base64") }) : chunk;
      }
      state = "ended";
    } catch (err) {
      if (!signal.aborted) (state = "broken"), (failure = err);
    }
  } finally {
    const audio = size && size <= MAX_KEPT_BYTES ? Buffer.concat(kept) : null;
    settled = state === "broken" ? await failed(failure) : await finish(audio, state === "ended" ? "completed" : "client_disconnect");
  }
  if (!sse) return;
  if (state === "broken") {
    yield event({ type: "error", error: { type: "upstream_error", code: "upstream_error", message: "The upstream's audio stream broke off; nothing was charged." } });
    return;
  }
  const u = s.usage();
  const usage = u ? { input_tokens: u.textInputTokens, output_tokens: u.audioOutputTokens, total_tokens: u.textInputTokens + u.audioOutputTokens } : undefined;
  yield event({ type: "speech.audio.done", ...(usage ? { usage } : {}), cost_usd: formatUsd(settled.chargedMicroUsd) });
}

const event = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
