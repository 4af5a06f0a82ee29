/**
 * Silent MPEG-1 Layer III audio of a given length, made in code (no encoder dependency): the
 * demo's `mp3`, so the OpenAI SDK's default format works offline. Each frame is a valid header
 * (48 kHz, 32 kbit/s, mono, no CRC) followed by zeroed side information and main data, which
 * every decoder plays as silence; its duration is what decoders (music-metadata) read back.
 */

/** 1152 samples at 48 kHz. */
export const MP3_FRAME_MS = 24;
/** 144 × 32000 / 48000 bytes, no padding. */
const FRAME_BYTES = 96;
/** Sync, MPEG-1, Layer III, no CRC | 32 kbit/s, 48 kHz, no padding | mono. */
const HEADER = 0xfffb14c0;

/** The frames covering `durationMs` (rounded up to whole frames, at least one). */
export function silentMp3(durationMs: number): Buffer {
  const frames = Math.max(1, Math.ceil(durationMs / MP3_FRAME_MS));
  const out = Buffer.alloc(frames * FRAME_BYTES);
  for (let i = 0; i < frames; i++) out.writeUInt32BE(HEADER, i * FRAME_BYTES);
  return out;
}
