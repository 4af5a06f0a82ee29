/**
 * The playground's Speech and Transcribe tabs, their browser-safe rules (imports nothing):
 * what a speech request can cost before it is sent, the speech events read back into audio
 * and its charge, and transcript timestamps.
 */
import type { ModelPrice } from "../values";

export const SPEECH_VOICES = ["alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse", "marin", "cedar"] as const;
/** Formats a browser plays (pcm has no header); the demo and Gemini make wav only. */
export const PLAYABLE_FORMATS = ["wav", "mp3", "opus", "aac", "flac"] as const;
export const AUDIO_MIME: Record<string, string> = { wav: "audio/wav", mp3: "audio/mpeg", opus: "audio/ogg", aac: "audio/aac", flac: "audio/flac" };

/** Per-character models cost exactly this; others are priced on what they produce (null: not known before). */
export function speechPriceMicro(price: ModelPrice, input: string): number | null {
  return price.perMCharacters === undefined ? null : Math.ceil(([...input].length * price.perMCharacters) / 1_000_000);
}

/** `speech.audio.delta` / `speech.audio.done` events (SSE text) → the audio bytes and the charge told by `done`. */
export function readSpeechEvents(sse: string): { audio: Uint8Array; costUsd: string | null; error: string | null } {
  const parts: Uint8Array[] = [];
  let costUsd: string | null = null;
  let error: string | null = null;
  for (const block of sse.split("\n\n")) {
    const data = block.split("\n").find((l) => l.startsWith("data: "))?.slice(6);
    if (!data) continue;
    const ev = JSON.parse(data) as { type?: string; audio?: string; cost_usd?: string; error?: { message?: string } };
    if (ev.type === "speech.audio.delta" && ev.audio) parts.push(Uint8Array.from(atob(ev.audio), (c) => c.charCodeAt(0)));
    else if (ev.type === "speech.audio.done") costUsd = ev.cost_usd ?? null;
    else if (ev.type === "error") error = ev.error?.message ?? "The audio stream broke off.";
  }
  const audio = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) audio.set(p, (at += p.length) - p.length);
  return { audio, costUsd, error };
}

/** 83.25 → "1:23.2". */
export function timestamp(seconds: number): string {
  const tenths = Math.round(Math.max(0, seconds) * 10);
  return `${Math.floor(tenths / 600)}:${((tenths % 600) / 10).toFixed(1).padStart(4, "0")}`;
}

/**
 * Samples (-1…1, mono) as 16-bit WAV. A browser recording (WebM/Ogg from MediaRecorder) often
 * carries no duration in its header, which the gateway needs before it bills; the playground
 * decodes the recording and uploads it as WAV instead.
 */
export function wavFromSamples(samples: Float32Array, sampleRate: number): Uint8Array {
  const out = new Uint8Array(44 + samples.length * 2);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  v.setUint32(4, 36 + samples.length * 2, true);
  ascii(8, "WAVEfmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  ascii(36, "data");
  v.setUint32(40, samples.length * 2, true);
  samples.forEach((s, i) => v.setInt16(44 + i * 2, Math.round(Math.max(-1, Math.min(1, s)) * 32767), true));
  return out;
}
