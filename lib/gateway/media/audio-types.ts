/**
 * The canonical audio requests and results every audio upstream adapter takes and gives
 * (docs/audio.md), and the unit a model's audio is priced in. Adapters import them without
 * loading the handlers.
 */
import type { ModelPrice } from "../../values";

export const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

export const TRANSCRIPT_FORMATS = ["json", "text", "srt", "vtt", "verbose_json"] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export interface SpeechRequest {
  model: string;
  input: string;
  voice: string;
  format: SpeechFormat;
  /** 0.25–4. */
  speed?: number;
  instructions?: string;
  /** "sse": OpenAI's speech.audio.delta / speech.audio.done events instead of the raw bytes. */
  streamFormat: "audio" | "sse";
}

/** Usage an audio upstream reports, by class (any may be 0). */
export interface AudioUsage {
  textInputTokens: number;
  audioInputTokens: number;
  textOutputTokens: number;
  audioOutputTokens: number;
}

/** Speech as the upstream produces it: the bytes stream to the client as they come. */
export interface SpeechStream {
  format: SpeechFormat;
  /** The audio bytes, in the requested format, as they arrive; throws on an upstream failure. */
  audio: AsyncIterable<Buffer> | Iterable<Buffer>;
  /** The usage the upstream reported; known once `audio` has ended (null: none reported). */
  usage(): AudioUsage | null;
}

export interface AudioFile {
  bytes: Buffer;
  filename: string;
  mimeType: string;
  /** Decoded by the gateway before any hold (audio-duration.ts). */
  durationMs: number;
}

export interface TranscriptionRequest {
  model: string;
  file: AudioFile;
  /** Translations: the answer is English text. */
  translate: boolean;
  format: TranscriptFormat;
  language?: string;
  prompt?: string;
  temperature?: number;
  /** verbose_json only: "segment" and/or "word". */
  granularities: ("segment" | "word")[];
  /** Transcript events (transcript.text.delta / .done) instead of one answer. */
  stream: boolean;
  /** Passed through to OpenAI upstreams as sent (chunking_strategy, include[]). */
  extra: Record<string, string | string[]>;
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
}

export interface Transcript {
  text: string;
  language?: string;
  segments?: TranscriptSegment[];
  words?: { word: string; start: number; end: number }[];
  usage: AudioUsage | null;
}

/** What every audio adapter call takes besides the request. */
export interface AudioCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
}

/** Transcript events as the upstream makes them: text deltas, then the whole transcript (with its usage). */
export interface TranscriptStream {
  deltas: AsyncIterable<string> | Iterable<string>;
  /** Known once `deltas` has ended; null when the upstream never finished it. */
  done(): Transcript | null;
}

/** The unit a model's audio is priced in: audio-price.ts charges by it, and an OpenAI speech call asks for SSE (usage comes with it) when it is tokens. */
export type AudioBasis = "characters" | "seconds" | "tokens";

export function audioBasis(price: ModelPrice): AudioBasis {
  if (price.perMCharacters !== undefined) return "characters";
  if (price.perSecond !== undefined) return "seconds";
  return "tokens";
}
