/**
 * OpenAI's audio API: `POST {baseUrl}/audio/speech` (JSON in, audio bytes or SSE out),
 * `/audio/transcriptions` and `/audio/translations` (multipart in, JSON or SSE out).
 * Speech streams back as it is made; token-priced speech models are asked for SSE, whose
 * `speech.audio.done` carries the usage (the raw-bytes answer has none). Transcripts are always asked as JSON (verbose_json when the
 * client wants segments): the gateway renders the client's format (audio/transcript-render.ts).
 * @see OpenAI API reference, Audio (createSpeech, createTranscription, createTranslation)
 */
import { FormData } from "undici";
import { z } from "zod";
import { audioBasis, type AudioCallOptions, type AudioUsage, type SpeechRequest, type SpeechStream, type Transcript, type TranscriptionRequest, type TranscriptStream } from "../media/audio-types";
import { badAnswer, transportFailure, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { GEMINI_TO_OPENAI_VOICE } from "./audio-voices";
import { callUpstream, readJson, type UpstreamResponse } from "./http";
import { openaiEndpoint, type OpenAIEndpoint } from "./openai-endpoint";
import { invalidUpstreamEvent, parseJsonEvent, readSse } from "./sse-reader";


const count = z.number().int().nonnegative().catch(0);
const speechUsage = z.looseObject({ input_tokens: count, output_tokens: count });
const transcriptionUsage = z.looseObject({
  type: z.literal("tokens"),
  input_tokens: count,
  input_token_details: z.looseObject({ text_tokens: count, audio_tokens: count }).optional(),
  output_tokens: count,
});
const transcriptSchema = z.looseObject({
  text: z.string(),
  language: z.string().optional(),
  segments: z.array(z.looseObject({ start: z.number(), end: z.number(), text: z.string() })).optional(),
  words: z.array(z.looseObject({ word: z.string(), start: z.number(), end: z.number() })).optional(),
  usage: z.unknown().optional(),
});

export async function openaiSpeech(route: ModelRoute, req: SpeechRequest, opts: AudioCallOptions, endpoint: OpenAIEndpoint = openaiEndpoint): Promise<Outcome<SpeechStream>> {
  const sse = audioBasis(route.price) === "tokens";
  const body: Record<string, unknown> = { model: route.upstreamModel, input: req.input, voice: GEMINI_TO_OPENAI_VOICE[req.voice] ?? req.voice, response_format: req.format };
  if (req.speed !== undefined) body.speed = req.speed;
  if (req.instructions !== undefined) body.instructions = req.instructions;
  if (sse) body.stream_format = "sse";
  const at = endpoint(route, "audio/speech");
  const res = await callUpstream({
    url: at.url,
    headers: { "content-type": "application/json", ...at.headers },
    body: JSON.stringify(body),
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    secret: route.upstream.apiKey,
  });
  if (!res.ok) return res;
  if (!sse) return { ok: true, value: { format: req.format, audio: res.value.body as AsyncIterable<Buffer>, usage: () => null } };
  let usage: AudioUsage | null = null;
  const upstreamBody = res.value.body;
  async function* deltas(): AsyncGenerator<Buffer> {
    for await (const msg of readSse(upstreamBody, opts.signal)) {
      const ev = parseJsonEvent(msg.data);
      if (ev.type === "speech.audio.delta" && typeof ev.audio === "string") yield Buffer.from(ev.audio, "base64");
      else if (ev.type === "speech.audio.done") {
        const u = speechUsage.safeParse(ev.usage);
        if (u.success) usage = { textInputTokens: u.data.input_tokens, audioInputTokens: 0, textOutputTokens: 0, audioOutputTokens: u.data.output_tokens };
      } else if (ev.type === "error") throw invalidUpstreamEvent("error");
    }
  }
  return { ok: true, value: { format: req.format, audio: deltas(), usage: () => usage } };
}

export async function openaiTranscription(route: ModelRoute, req: TranscriptionRequest, opts: AudioCallOptions, endpoint: OpenAIEndpoint = openaiEndpoint): Promise<Outcome<Transcript>> {
  const res = await postTranscription(route, req, opts, endpoint);
  if (!res.ok) return res;
  return readTranscript(res.value, opts.signal);
}

/**
 * `stream: true`: the upstream's transcript.text.delta events relayed as they come, and its
 * transcript.text.done (text and usage). A model without events (whisper-1) answers JSON: its
 * text becomes the deltas.
 */
export async function openaiTranscriptEvents(route: ModelRoute, req: TranscriptionRequest, opts: AudioCallOptions, endpoint: OpenAIEndpoint = openaiEndpoint): Promise<Outcome<TranscriptStream>> {
  const res = await postTranscription(route, req, opts, endpoint);
  if (!res.ok) return res;
  if (String(res.value.headers["content-type"] ?? "").includes("application/json")) {
    const t = await readTranscript(res.value, opts.signal);
    return t.ok ? { ok: true, value: wholeTranscript(t.value) } : t;
  }
  let done: Transcript | null = null;
  const body = res.value.body;
  async function* deltas(): AsyncGenerator<string> {
    for await (const msg of readSse(body, opts.signal)) {
      const ev = parseJsonEvent(msg.data);
      if (ev.type === "transcript.text.delta" && typeof ev.delta === "string") yield ev.delta;
      else if (ev.type === "transcript.text.done" && typeof ev.text === "string") done = { text: ev.text, usage: usageOf(ev.usage) };
      else if (ev.type === "error") throw invalidUpstreamEvent("error");
    }
  }
  return { ok: true, value: { deltas: deltas(), done: () => done } };
}

/** A finished transcript as events: a delta per word. */
export function wholeTranscript(t: Transcript): TranscriptStream {
  return { deltas: t.text.match(/\s*\S+/g) ?? [], done: () => t };
}

async function postTranscription(route: ModelRoute, req: TranscriptionRequest, opts: AudioCallOptions, endpoint: OpenAIEndpoint) {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(req.file.bytes)], { type: req.file.mimeType }), req.file.filename);
  form.set("model", route.upstreamModel);
  form.set("response_format", req.format === "srt" || req.format === "vtt" || req.format === "verbose_json" ? "verbose_json" : "json");
  if (req.language !== undefined) form.set("language", req.language);
  if (req.prompt !== undefined) form.set("prompt", req.prompt);
  if (req.temperature !== undefined) form.set("temperature", String(req.temperature));
  for (const g of req.granularities) form.append("timestamp_granularities[]", g);
  for (const [k, v] of Object.entries(req.extra)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  if (req.stream) form.set("stream", "true");
  const at = endpoint(route, req.translate ? "audio/translations" : "audio/transcriptions");
  return callUpstream({ url: at.url, headers: at.headers, body: form, timeoutMs: opts.timeoutMs, signal: opts.signal, secret: route.upstream.apiKey });
}

async function readTranscript(res: UpstreamResponse, signal: AbortSignal): Promise<Outcome<Transcript>> {
  const json = await readJson(res, signal);
  if (!json.ok) return json;
  const t = transcriptSchema.safeParse(json.value);
  if (!t.success) return badAnswer("The upstream answered without a transcript.");
  return { ok: true, value: { text: t.data.text, language: t.data.language, segments: t.data.segments, words: t.data.words, usage: usageOf(t.data.usage) } };
}

/** Token usage (gpt-4o-transcribe); `{type: "duration"}` (whisper-1) is null: those are metered on the decoded duration. */
function usageOf(v: unknown): AudioUsage | null {
  const u = transcriptionUsage.safeParse(v);
  if (!u.success) return null;
  const d = u.data.input_token_details;
  return {
    textInputTokens: d ? d.text_tokens : 0,
    audioInputTokens: d ? d.audio_tokens : u.data.input_tokens,
    textOutputTokens: u.data.output_tokens,
    audioOutputTokens: 0,
  };
}
