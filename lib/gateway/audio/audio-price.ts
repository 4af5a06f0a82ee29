/**
 * What audio costs and what it holds (docs/audio.md). A model has one pricing basis, checked by
 * the config schema: per character of input (speech), per second of audio (produced for speech,
 * uploaded for transcription, decoded by the gateway), or per token class (text in, audio in,
 * text out, audio out) from the usage the vendor reports. The hold is a true upper bound of the
 * charge; the charge is clamped to it.
 */
import type { ModelPrice } from "../../../db/schema";
import type { RequestLogFields } from "../../billing/port";
import { audioBasis, type AudioUsage } from "../media/audio-types";

/** Slower than the slowest speech any vendor makes (OpenAI's speed 0.25 reads ~4 characters a second). */
export const SPEECH_SECONDS_PER_CHAR_BOUND = 0.4;
/** Room for short inputs (a word at speed 0.25, leading silence). */
export const SPEECH_SECONDS_FLOOR = 5;
/** Twice the highest documented audio-token rate (Gemini: 32 tokens a second in, 25 out). */
export const AUDIO_TOKENS_PER_SECOND_BOUND = 64;
/** A transcript's text: far more than the fastest speech (~6 tokens a second), plus a margin. */
export const TRANSCRIPT_TOKENS_PER_SECOND_BOUND = 16;
export const TRANSCRIPT_TOKENS_FLOOR = 256;
/** Instructions a vendor wraps around the prompt, counted as text input. */
const PROMPT_TOKENS_FLOOR = 256;

const up = (micro: number) => Math.max(0, Math.ceil(micro));
const perM = (units: number, pricePerM: number | undefined) => units * (pricePerM ?? 0);

/** The cost of these token classes, rounded up once. */
export function audioTokenCostMicro(u: AudioUsage, price: ModelPrice): number {
  return up(
    (perM(u.textInputTokens, price.inputPerMTok) +
      perM(u.audioInputTokens, price.audioInputPerMTok) +
      perM(u.textOutputTokens, price.outputPerMTok) +
      perM(u.audioOutputTokens, price.audioOutputPerMTok)) /
      1_000_000,
  );
}

/** The longest audio `input` can become. */
export function speechSecondsBound(input: string): number {
  return [...input].length * SPEECH_SECONDS_PER_CHAR_BOUND + SPEECH_SECONDS_FLOOR;
}

/** Speech token classes at most: the input's bytes as text tokens, `seconds` of audio as audio tokens. */
export function speechTokenBound(input: string, seconds: number): AudioUsage {
  return { textInputTokens: Buffer.byteLength(input, "utf8") + PROMPT_TOKENS_FLOOR, audioInputTokens: 0, textOutputTokens: 0, audioOutputTokens: Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND_BOUND) };
}

/** Speech: the worst case of `input` at this price (its characters, or the longest audio it can become). */
export function speechHoldMicro(input: string, price: ModelPrice): number {
  const seconds = speechSecondsBound(input);
  switch (audioBasis(price)) {
    case "characters":
      return up(perM([...input].length, price.perMCharacters) / 1_000_000);
    case "seconds":
      return up(seconds * audioPerSecond(price));
    case "tokens":
      return audioTokenCostMicro(speechTokenBound(input, seconds), price);
  }
}

/** Transcription token classes at most, for a file of `durationMs` and a `prompt`. */
export function transcriptionTokenBound(durationMs: number, prompt: string | undefined): AudioUsage {
  const seconds = durationMs / 1000;
  return {
    textInputTokens: Buffer.byteLength(prompt ?? "", "utf8") + PROMPT_TOKENS_FLOOR,
    audioInputTokens: Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND_BOUND),
    textOutputTokens: Math.ceil(seconds * TRANSCRIPT_TOKENS_PER_SECOND_BOUND) + TRANSCRIPT_TOKENS_FLOOR,
    audioOutputTokens: 0,
  };
}

/** Transcription: the worst case of a file of `durationMs` (and a `prompt`) at this price. */
export function transcriptionHoldMicro(durationMs: number, prompt: string | undefined, price: ModelPrice): number {
  if (audioBasis(price) === "seconds") return up((durationMs / 1000) * audioPerSecond(price));
  return audioTokenCostMicro(transcriptionTokenBound(durationMs, prompt), price);
}

export interface AudioCharge {
  /** NaN when nothing measured it (no decodable duration): the port charges the whole hold and says so. */
  costMicroUsd: number;
  /** The usage was missing and `bound` was charged (the row's settlement says completed_estimated). */
  estimated: boolean;
  log: Partial<RequestLogFields>;
}

/**
 * What was processed, priced: characters of input, seconds of audio (produced for speech,
 * uploaded for transcription; never the response format's length), or the reported usage.
 */
export function audioCharge(price: ModelPrice, m: { characters?: number; audioMs: number | null; usage: AudioUsage | null; bound: AudioUsage }): AudioCharge {
  const basis = audioBasis(price);
  const estimated = basis === "tokens" && !m.usage;
  const u = estimated ? m.bound : m.usage;
  const log: Partial<RequestLogFields> = {
    audioMs: m.audioMs,
    inputCharacters: m.characters ?? null,
    ...(u
      ? {
          inputTokens: u.textInputTokens + u.audioInputTokens,
          audioInputTokens: u.audioInputTokens,
          outputTokens: u.textOutputTokens + u.audioOutputTokens,
          audioOutputTokens: u.audioOutputTokens,
        }
      : {}),
  };
  switch (basis) {
    case "characters":
      return { costMicroUsd: up(perM(m.characters ?? 0, price.perMCharacters) / 1_000_000), estimated, log };
    case "seconds":
      if (m.audioMs === null) return { costMicroUsd: Number.NaN, estimated, log: { ...log, usageNote: "the audio's duration could not be decoded" } };
      return { costMicroUsd: up((m.audioMs * audioPerSecond(price)) / 1000), estimated, log };
    case "tokens":
      return { costMicroUsd: audioTokenCostMicro(u!, price), estimated, log: estimated ? { ...log, usageNote: "the upstream reported no usage: charged the token bound of the audio" } : log };
  }
}

/** An audio model's price per second: one amount (the config refuses a video's table by resolution for audio kinds). */
function audioPerSecond(price: ModelPrice): number {
  return typeof price.perSecond === "number" ? price.perSecond : Number.NaN;
}
