/**
 * The duration of uploaded or produced audio, decoded by the gateway (music-metadata: MP3, WAV,
 * FLAC, Ogg/Opus, M4A/AAC, WebM, …). Audio is metered on this, never on what the upstream or
 * the response format says (docs/audio.md). Headerless `pcm` is OpenAI's 24 kHz 16-bit mono.
 */
import { parseBuffer } from "music-metadata";
import { pcmDurationMs } from "../media/wav";

/** Milliseconds, or null when the bytes are not audio whose length can be read. */
export async function audioDurationMs(bytes: Buffer, mimeType?: string, format?: string): Promise<number | null> {
  if (format === "pcm") return pcmDurationMs(bytes.length);
  try {
    const meta = await parseBuffer(bytes, mimeType ? { mimeType, size: bytes.length } : { size: bytes.length }, { duration: true, skipCovers: true });
    const s = meta.format.duration;
    return typeof s === "number" && Number.isFinite(s) && s >= 0 ? Math.round(s * 1000) : null;
  } catch {
    return null;
  }
}
