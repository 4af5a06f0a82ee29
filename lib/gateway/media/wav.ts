/** 16-bit little-endian PCM in a RIFF/WAVE container (the demo's audio, Gemini's PCM answers). */

export function pcmToWav(pcm: Buffer, sampleRate: number, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write("WAVE", 8);
  header.write("fmt ", 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** OpenAI's `pcm`: 24 kHz, 16-bit signed little-endian, mono, no header. */
export const PCM_SAMPLE_RATE = 24_000;

export function pcmDurationMs(bytes: number, sampleRate = PCM_SAMPLE_RATE): number {
  return Math.round((bytes / 2 / sampleRate) * 1000);
}
