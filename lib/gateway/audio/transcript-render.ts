/**
 * A transcript in the format the client asked for (OpenAI's shapes), rendered by the gateway
 * from one upstream answer: so every format of the same file costs the same (docs/audio.md),
 * and `srt`/`vtt` come out right whichever upstream served. Without segments from the upstream,
 * the transcript is one segment spanning the decoded duration.
 */
import type { AudioUsage, Transcript, TranscriptFormat, TranscriptSegment } from "../media/audio-types";

export interface RenderedTranscript {
  contentType: string;
  body: string;
}

export function renderTranscript(t: Transcript, format: TranscriptFormat, durationMs: number, translate: boolean, usage: Record<string, unknown> | undefined): RenderedTranscript {
  switch (format) {
    case "text":
      return { contentType: "text/plain; charset=utf-8", body: `${t.text}\n` };
    case "srt":
      return { contentType: "text/plain; charset=utf-8", body: segmentsOf(t, durationMs).map((s, i) => `${i + 1}\n${stamp(s.start, ",")} --> ${stamp(s.end, ",")}\n${s.text.trim()}\n`).join("\n") };
    case "vtt":
      return { contentType: "text/vtt; charset=utf-8", body: `WEBVTT\n\n${segmentsOf(t, durationMs).map((s) => `${stamp(s.start, ".")} --> ${stamp(s.end, ".")}\n${s.text.trim()}\n`).join("\n")}` };
    case "json":
      return jsonBody({ text: t.text, ...(usage ? { usage } : {}) });
    case "verbose_json":
      return jsonBody({
        task: translate ? "translate" : "transcribe",
        language: t.language ?? (translate ? "english" : "unknown"),
        duration: durationMs / 1000,
        text: t.text,
        segments: segmentsOf(t, durationMs).map((s, id) => ({ id, seek: 0, start: s.start, end: s.end, text: s.text, tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 0, no_speech_prob: 0 })),
        ...(t.words ? { words: t.words } : {}),
        ...(usage ? { usage } : {}),
      });
  }
}

/** OpenAI's `usage` of a transcription: tokens where the upstream counted them, else the decoded seconds. */
export function openaiTranscriptionUsage(u: AudioUsage | null, durationMs: number): Record<string, unknown> {
  if (!u) return { type: "duration", seconds: Math.ceil(durationMs / 1000) };
  return {
    type: "tokens",
    input_tokens: u.textInputTokens + u.audioInputTokens,
    input_token_details: { text_tokens: u.textInputTokens, audio_tokens: u.audioInputTokens },
    output_tokens: u.textOutputTokens,
    total_tokens: u.textInputTokens + u.audioInputTokens + u.textOutputTokens,
  };
}

function jsonBody(v: unknown): RenderedTranscript {
  return { contentType: "application/json", body: JSON.stringify(v) };
}

function segmentsOf(t: Transcript, durationMs: number): TranscriptSegment[] {
  if (t.segments?.length) return t.segments;
  return [{ start: 0, end: durationMs / 1000, text: t.text }];
}

/** 00:01:02,345 (srt) or 00:01:02.345 (vtt). */
export function stamp(seconds: number, sep: "," | "."): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(Math.floor(ms / 3_600_000))}:${p(Math.floor(ms / 60_000) % 60)}:${p(Math.floor(ms / 1000) % 60)}${sep}${p(ms % 1000, 3)}`;
}
