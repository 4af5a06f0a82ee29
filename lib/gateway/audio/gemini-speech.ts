/**
 * Speech through Google's wire format: `models/{model}:generateContent` on a speech model with
 * `generationConfig.responseModalities: ["AUDIO"]` (what @google/genai sends for TTS). The same
 * speech path as `/v1/audio/speech` (openSpeech), on any upstream that serves the model; the
 * answer is Gemini's: 24 kHz 16-bit PCM as `inlineData`, the usage by modality, the charge.
 * Fields the speech path has no counterpart for are refused by name.
 */
import { chargeHeaders } from "../billing";
import { getCatalog } from "../catalog";
import { errors, type ApiError, type RequestRefusal } from "../errors";
import { json, type GatewayResponse } from "../http";
import type { RouteContext } from "../types";
import type { SpeechRequest } from "../media/audio-types";
import { openSpeech } from "./handle-speech";
import { MAX_SPEECH_CHARS } from "./speech-request";
import type { Ok } from "../../result";

/** Whether the path's model is a speech model (then generateContent is speech, not text). */
export async function isSpeechModel(modelId: string): Promise<boolean> {
  return (await getCatalog()).routes.get(modelId)?.[0]?.kind === "speech";
}

type Parsed = Ok<SpeechRequest> | RequestRefusal;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function parseGeminiSpeech(body: unknown, model: string): Parsed {
  const bad = (field: string, why: string): Parsed => ({ ok: false, model, error: errors.invalidRequest(`\`${field}\` ${why}.`, field) });
  if (!isObject(body)) return bad("body", "must be a JSON object");
  const extra = Object.keys(body).find((k) => k !== "contents" && k !== "generationConfig" && k !== "model");
  if (extra) return bad(extra, "is not supported by speech models");
  if (!Array.isArray(body.contents) || !body.contents.length) return bad("contents", "must be a non-empty array");
  const texts: string[] = [];
  for (const [i, c] of body.contents.entries()) {
    if (!isObject(c) || !Array.isArray(c.parts)) return bad(`contents[${i}].parts`, "must be an array");
    for (const [j, p] of c.parts.entries()) {
      if (!isObject(p) || typeof p.text !== "string") return bad(`contents[${i}].parts[${j}]`, "must be a text part (speech models read text)");
      texts.push(p.text);
    }
  }
  const input = texts.join("\n");
  if (!input.trim()) return bad("contents", "must hold some text");
  if ([...input].length > MAX_SPEECH_CHARS) return bad("contents", `must be at most ${MAX_SPEECH_CHARS} characters`);
  const g = body.generationConfig;
  if (!isObject(g)) return bad("generationConfig.responseModalities", 'must be ["AUDIO"] for a speech model');
  const gExtra = Object.keys(g).find((k) => k !== "responseModalities" && k !== "speechConfig");
  if (gExtra) return bad(`generationConfig.${gExtra}`, "is not supported by speech models");
  const modalities = g.responseModalities;
  if (!Array.isArray(modalities) || modalities.length !== 1 || String(modalities[0]).toUpperCase() !== "AUDIO")
    return bad("generationConfig.responseModalities", 'must be ["AUDIO"] for a speech model');
  let voice = "Kore"; // Gemini's voice when none is named
  const sc = g.speechConfig;
  if (sc !== undefined) {
    if (!isObject(sc)) return bad("generationConfig.speechConfig", "must be an object");
    const scExtra = Object.keys(sc).find((k) => k !== "voiceConfig");
    if (scExtra) return bad(`generationConfig.speechConfig.${scExtra}`, "is not supported through the gateway (one prebuilt voice)");
    const name = (sc.voiceConfig as { prebuiltVoiceConfig?: { voiceName?: unknown } } | undefined)?.prebuiltVoiceConfig?.voiceName;
    if (sc.voiceConfig !== undefined && typeof name !== "string") return bad("generationConfig.speechConfig.voiceConfig", "must name a prebuiltVoiceConfig.voiceName");
    if (typeof name === "string") voice = name;
  }
  return { ok: true, value: { model, input, voice, format: "pcm", streamFormat: "audio" } };
}

export async function handleGeminiSpeech(ctx: RouteContext, routePath: string, model: string): Promise<GatewayResponse> {
  const open = await openSpeech(ctx, routePath, async (body) => parseGeminiSpeech(body, model));
  if (!open.ok) return open.error;
  const opened = open.value;
  const parts: Buffer[] = [];
  try {
    for await (const chunk of opened.speech.audio) parts.push(chunk);
  } catch (err) {
    if (ctx.req.signal.aborted) {
      await opened.finish(Buffer.concat(parts), "client_disconnect");
      return ctx.error(errors.upstream("The client went away."));
    }
    await opened.failed(err);
    return ctx.error(errors.upstream("The upstream's audio stream broke off; nothing was charged."));
  }
  const pcm = Buffer.concat(parts);
  const settled = await opened.finish(pcm, "completed");
  const u = opened.speech.usage();
  const usageMetadata = u
    ? {
        promptTokenCount: u.textInputTokens,
        candidatesTokenCount: u.audioOutputTokens,
        totalTokenCount: u.textInputTokens + u.audioOutputTokens,
        promptTokensDetails: [{ modality: "TEXT", tokenCount: u.textInputTokens }],
        candidatesTokensDetails: [{ modality: "AUDIO", tokenCount: u.audioOutputTokens }],
      }
    : {};
  return json(
    200,
    {
      candidates: [{ content: { role: "model", parts: [{ inlineData: { mimeType: "audio/L16;codec=pcm;rate=24000", data: pcm.toString("base64") } }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { ...usageMetadata, costUsd: chargeHeaders(settled)["x-gateway-cost-usd"] },
      modelVersion: opened.route.modelId,
    },
    Object.assign(chargeHeaders(settled), opened.headers, { "x-gateway-model": opened.route.modelId }),
  );
}
