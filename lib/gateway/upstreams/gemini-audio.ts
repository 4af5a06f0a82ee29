/**
 * Gemini (Google AI, v1beta) audio through `:generateContent`. Speech: `responseModalities:
 * ["AUDIO"]` with a `speechConfig` voice; the answer is 24 kHz 16-bit PCM as `inlineData`, which
 * the gateway answers as `pcm` or wraps as `wav` (Gemini encodes nothing else: other formats
 * are a 400 naming `response_format`). Transcription: the audio as an `inlineData` part and an
 * instruction. Both report usage per modality (`usageMetadata`), which is what is billed.
 * Wire names are those of @google/genai (generateContentParametersToMldev).
 */
import { z } from "zod";
import type { AudioCallOptions, AudioUsage, SpeechRequest, SpeechStream, Transcript, TranscriptionRequest } from "../media/audio-types";
import { PCM_SAMPLE_RATE, pcmToWav } from "../media/wav";
import { badAnswer, errors, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { joinUrl, postJson } from "./http";
import { GEMINI_VOICES, OPENAI_TO_GEMINI_VOICE } from "./audio-voices";

/** A request is at most 20 MB and base64 grows the file by a third: larger files need Gemini's Files API. */
export const GEMINI_INLINE_AUDIO_BYTES = 14 * 1024 * 1024;

const count = z.number().int().nonnegative().catch(0);
const modalities = z.array(z.looseObject({ modality: z.string().optional(), tokenCount: count })).optional();
const usageSchema = z.looseObject({ promptTokenCount: count.optional(), candidatesTokenCount: count.optional(), thoughtsTokenCount: count.optional(), promptTokensDetails: modalities });
const answerSchema = z.looseObject({
  candidates: z.array(z.looseObject({ content: z.looseObject({ parts: z.array(z.looseObject({ text: z.string().optional(), inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional() })).optional() }).optional() })).min(1),
  usageMetadata: usageSchema.optional(),
});

export async function geminiSpeech(route: ModelRoute, req: SpeechRequest, opts: AudioCallOptions): Promise<Outcome<SpeechStream>> {
  if (req.format !== "wav" && req.format !== "pcm") return refuse('Gemini speech models make PCM audio: `response_format` must be "wav" or "pcm".', "response_format");
  if (req.speed !== undefined && req.speed !== 1) return refuse("Gemini speech models have no `speed`; say how to speak in `instructions`.", "speed");
  const voice = GEMINI_VOICES.find((v) => v.toLowerCase() === req.voice.toLowerCase()) ?? OPENAI_TO_GEMINI_VOICE[req.voice.toLowerCase()];
  if (!voice) return refuse(`Unknown \`voice\` "${req.voice}" for a Gemini speech model: use one of ${GEMINI_VOICES.join(", ")}.`, "voice");
  const res = await generate(route, opts, {
    contents: [{ role: "user", parts: [{ text: req.instructions ? `${req.instructions}: ${req.input}` : req.input }] }],
    generationConfig: { responseModalities: ["AUDIO"], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: voice } } } },
  });
  if (!res.ok) return res;
  const data = res.value.parts.find((p) => p.inlineData)?.inlineData;
  if (!data || !/^audio\/(L16|pcm)/i.test(data.mimeType)) return badAnswer("The upstream answered without PCM audio.");
  const rate = Number(/rate=(\d+)/.exec(data.mimeType)?.[1] ?? PCM_SAMPLE_RATE);
  if (req.format === "pcm" && rate !== PCM_SAMPLE_RATE) return badAnswer(`The upstream's audio is ${rate} Hz, not the 24 kHz of \`pcm\`.`);
  const pcm = Buffer.from(data.data, "base64");
  const u = res.value.usage;
  const usage: AudioUsage | null = u ? { textInputTokens: u.promptTokenCount ?? 0, audioInputTokens: 0, textOutputTokens: 0, audioOutputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0) } : null;
  return { ok: true, value: { format: req.format, audio: [req.format === "wav" ? pcmToWav(pcm, rate) : pcm], usage: () => usage } };
}

export async function geminiTranscription(route: ModelRoute, req: TranscriptionRequest, opts: AudioCallOptions): Promise<Outcome<Transcript>> {
  if (req.granularities.includes("word")) return refuse("Gemini transcription models give no word timestamps.", "timestamp_granularities[]");
  if (req.file.bytes.length > GEMINI_INLINE_AUDIO_BYTES) return refuse(`Gemini transcription models take audio files up to ${GEMINI_INLINE_AUDIO_BYTES / 1024 / 1024} MB through the gateway.`, "file");
  const ask = req.translate
    ? "Translate the speech in this audio into English. Answer with the translation only."
    : `Transcribe the speech in this audio verbatim${req.language ? ` (its language: ${req.language})` : ""}. Answer with the transcript only.`;
  const res = await generate(route, opts, {
    contents: [{ role: "user", parts: [{ inlineData: { mimeType: mimeOf(req.file.mimeType, req.file.filename), data: req.file.bytes.toString("base64") } }, { text: req.prompt ? `${ask}\nContext: ${req.prompt}` : ask }] }],
    ...(req.temperature !== undefined ? { generationConfig: { temperature: req.temperature } } : {}),
  });
  if (!res.ok) return res;
  const text = res.value.parts.map((p) => p.text ?? "").join("").trim();
  const u = res.value.usage;
  let usage: AudioUsage | null = null;
  if (u) {
    const audioIn = (u.promptTokensDetails ?? []).filter((d) => d.modality === "AUDIO").reduce((n, d) => n + d.tokenCount, 0);
    usage = { textInputTokens: Math.max(0, (u.promptTokenCount ?? 0) - audioIn), audioInputTokens: audioIn, textOutputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0), audioOutputTokens: 0 };
  }
  return { ok: true, value: { text, language: req.translate ? "english" : req.language, usage } };
}

async function generate(route: ModelRoute, opts: AudioCallOptions, body: unknown) {
  const model = route.upstreamModel.replace(/^models\//, "");
  const res = await postJson({
    url: joinUrl(route.upstream.baseUrl, `v1beta/models/${encodeURIComponent(model)}:generateContent`),
    headers: route.upstream.apiKey ? { "x-goog-api-key": route.upstream.apiKey } : {},
    body,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    secret: route.upstream.apiKey,
  });
  if (!res.ok) return res;
  const parsed = answerSchema.safeParse(res.value);
  if (!parsed.success) return badAnswer("The upstream answered without a candidate.");
  return { ok: true as const, value: { parts: parsed.data.candidates[0]!.content?.parts ?? [], usage: parsed.data.usageMetadata } };
}

/** Gemini's audio types (wav, mp3, aiff, aac, ogg, flac); a generic type is named from the extension. */
function mimeOf(mime: string, filename: string): string {
  if (mime.startsWith("audio/")) return mime;
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  const byExt: Record<string, string> = { wav: "audio/wav", mp3: "audio/mp3", mpga: "audio/mp3", mpeg: "audio/mp3", aiff: "audio/aiff", aac: "audio/aac", m4a: "audio/aac", ogg: "audio/ogg", opus: "audio/ogg", flac: "audio/flac", webm: "audio/webm" };
  return byExt[ext ?? ""] ?? mime;
}

function refuse(message: string, param: string): Outcome<never> {
  return { ok: false, error: errors.invalidRequest(message, param), retryable: false };
}
