/**
 * POST /v1/audio/transcriptions and /v1/audio/translations: the file's duration is decoded
 * first; the hold is that duration at the model's price (per second, or the token bound of that
 * much audio); the charge is the decoded duration (per-second models) or the usage the upstream
 * reports (token models) — never the answer's format, so `srt` costs what `json` does. The
 * gateway renders the client's format from one upstream answer (transcript-render.ts).
 * `stream: true` relays the upstream's transcript events as they come (open-audio.ts) and
 * settles when they end; the rest is the pipeline's one-shot path (runMetered).
 */
import { formatUsd } from "../../billing/money";
import type { Settled } from "../../billing/port";
import { header, type GatewayResponse } from "../http";
import type { ParsedRequest } from "../errors";
import type { ModelRoute } from "../model-route";
import { runMetered, type MeteredSpec } from "../pipeline";
import type { RouteContext } from "../types";
import { audioTimeoutMs, transcribeWithUpstream, transcriptEventsWithUpstream } from "../upstreams/audio-upstream";
import { AUDIO_TOKENS_PER_SECOND_BOUND, audioCharge, transcriptionHoldMicro, transcriptionTokenBound } from "./audio-price";
import type { Transcript, TranscriptionRequest, TranscriptStream } from "../media/audio-types";
import { brokenStream, openAudio } from "./open-audio";
import { openaiTranscriptionUsage, renderTranscript } from "./transcript-render";
import { parseTranscriptionRequest } from "./transcription-request";

export const TRANSCRIPTION_ROUTE = "/v1/audio/transcriptions";
export const TRANSLATION_ROUTE = "/v1/audio/translations";

export const handleTranscription = (ctx: RouteContext): Promise<GatewayResponse> => serve(ctx, false);
export const handleTranslation = (ctx: RouteContext): Promise<GatewayResponse> => serve(ctx, true);

type Parsed = ParsedRequest<TranscriptionRequest>;

async function serve(ctx: RouteContext, translate: boolean): Promise<GatewayResponse> {
  // Parsed once (the file decoded once), whichever path answers.
  const body = await ctx.readBody();
  const parsed: Parsed = !body.ok ? { ok: false, error: body.error, model: null } : await parse(body.value, header(ctx.req, "content-type"), translate);
  return parsed.ok && parsed.value.req.stream ? streamTranscript(ctx, parsed) : runMetered(ctx, transcription(translate, parsed));
}

async function parse(body: Buffer, contentType: string | undefined, translate: boolean): Promise<Parsed> {
  const p = await parseTranscriptionRequest(body, contentType, translate);
  return p.ok ? { ok: true, value: { req: p.value, model: p.value.model } } : p;
}

/** What the token limits count: the audio's token bound. */
const tokensOf = (req: TranscriptionRequest) => Math.ceil((req.file.durationMs / 1000) * AUDIO_TOKENS_PER_SECOND_BOUND);
const holdFor = (req: TranscriptionRequest, routes: readonly ModelRoute[]) => Math.max(...routes.map((r) => transcriptionHoldMicro(req.file.durationMs, req.prompt, r.price)));
const chargeOf = (req: TranscriptionRequest, t: Transcript | null, route: ModelRoute) =>
  audioCharge(route.price, { audioMs: req.file.durationMs, usage: t?.usage ?? null, bound: transcriptionTokenBound(req.file.durationMs, req.prompt) });

function transcription(translate: boolean, parsed: Parsed): MeteredSpec<TranscriptionRequest, null, Transcript> {
  return {
    route: translate ? TRANSLATION_ROUTE : TRANSCRIPTION_ROUTE,
    kinds: ["transcription"],
    parse: async () => parsed,
    holdFor: (req, routes) => ({ ok: true, value: { plan: null, holdMicroUsd: holdFor(req, routes), tokens: tokensOf(req) } }),
    timeoutMs: audioTimeoutMs,
    call: (route, req, _plan, signal) => transcribeWithUpstream(route, req, signal),
    costOf(req, _plan, out, route) {
      const c = chargeOf(req, out, route);
      const u = out.usage;
      return { ok: true, value: { costMicroUsd: c.costMicroUsd, usedTokens: u ? u.textInputTokens + u.audioInputTokens + u.textOutputTokens : tokensOf(req), log: { ...c.log, ...(c.estimated ? { settlement: "completed_estimated" } : {}) } } };
    },
    render(req, _plan, out, _route, headers) {
      const r = renderTranscript(out, req.format, req.file.durationMs, req.translate, openaiTranscriptionUsage(out.usage, req.file.durationMs));
      return { status: 200, headers: Object.assign(headers, { "content-type": r.contentType }), body: r.body };
    },
  };
}

async function streamTranscript(ctx: RouteContext, parsed: Parsed): Promise<GatewayResponse> {
  const opened = await openAudio<TranscriptionRequest, TranscriptStream>(ctx, {
    route: TRANSCRIPTION_ROUTE,
    kind: "transcription",
    parse: async () => parsed,
    holdFor: (req, routes) => ({ ok: true, value: { holdMicroUsd: holdFor(req, routes), tokens: tokensOf(req) } }),
    logBase: () => ({ stream: true }),
    call: (route, req, signal) => transcriptEventsWithUpstream(route, req, signal),
  });
  if (!opened.ok) return opened.error;
  const { req, out, route, settle } = opened.value;
  const finish = (end: "completed" | "client_disconnect") => {
    const c = chargeOf(req, out.done(), route);
    return settle(c.costMicroUsd, Object.assign(c.log, { status: 200, settlement: c.estimated && end === "completed" ? "completed_estimated" : end }));
  };
  const headers = Object.assign(opened.value.headers, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  return { status: 200, headers, body: transcriptEvents(req, out, ctx.req.signal, finish, (err) => settle(0, brokenStream(err))) };
}

/**
 * OpenAI's transcript events, relayed as they come, then `done` with the text, the usage and
 * the charge. Leaving early still settles (in `finally`); a broken stream is refunded and told.
 */
async function* transcriptEvents(
  req: TranscriptionRequest,
  s: TranscriptStream,
  signal: AbortSignal,
  finish: (end: "completed" | "client_disconnect") => Promise<Settled>,
  failed: (err: unknown) => Promise<Settled>,
): AsyncGenerator<string> {
  let state: "streaming" | "ended" | "broken" = "streaming";
  let failure: unknown;
  let settled: Settled | null = null;
  try {
    try {
      for await (const delta of s.deltas) yield event({ type: "transcript.text.delta", delta });
      state = s.done() ? "ended" : "broken";
      if (state === "broken") failure = new Error("the upstream's events ended without transcript.text.done");
    } catch (err) {
      if (!signal.aborted) (state = "broken"), (failure = err);
    }
  } finally {
    settled = state === "broken" ? await failed(failure) : await finish(state === "ended" ? "completed" : "client_disconnect");
  }
  const t = s.done();
  if (state === "broken" || !t) {
    yield event({ type: "error", error: { type: "upstream_error", code: "upstream_error", message: "The upstream's transcript stream broke off; nothing was charged." } });
    return;
  }
  yield event({ type: "transcript.text.done", text: t.text, usage: openaiTranscriptionUsage(t.usage, req.file.durationMs), cost_usd: formatUsd(settled.chargedMicroUsd) });
}

const event = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
