import { parseBuffer } from "music-metadata";
import { describe, expect, it } from "vitest";
import type { SpeechRequest, TranscriptionRequest } from "../media/audio-types";
import { audioDurationMs } from "../audio/audio-duration";
import { demoSpeech, demoTranscription } from "./demo-audio";

const speech = (over: Partial<SpeechRequest> = {}): SpeechRequest => ({ model: "demo-tts", input: "hello demo world", voice: "alloy", format: "wav", streamFormat: "audio", ...over });
const bytesOf = async (r: ReturnType<typeof demoSpeech>) => {
  if (!r.ok) throw new Error("refused");
  const parts: Buffer[] = [];
  for await (const b of r.value.audio) parts.push(b);
  return Buffer.concat(parts);
};

describe("demo speech", () => {
  it("is a real WAV any decoder reads, its length set by the input and the speed", async () => {
    const wav = await bytesOf(demoSpeech(speech()));
    const meta = await parseBuffer(wav, { mimeType: "audio/wav" }, { duration: true });
    expect(meta.format).toMatchObject({ sampleRate: 24_000, numberOfChannels: 1, bitsPerSample: 16 });
    // 14 letters × 70 ms + 3 gaps × 60 ms.
    expect(meta.format.duration).toBeCloseTo(1.16, 2);
    const fast = await bytesOf(demoSpeech(speech({ speed: 2, format: "pcm" })));
    expect(fast.length).toBe((wav.length - 44) / 2);
  });

  it("makes MP3 (the OpenAI SDK's default) that decoders read as the melody's length", async () => {
    const mp3 = await bytesOf(demoSpeech(speech({ format: "mp3" })));
    const meta = await parseBuffer(mp3, { mimeType: "audio/mpeg" }, { duration: true });
    expect(meta.format).toMatchObject({ codec: "MPEG 1 Layer 3", sampleRate: 48_000, numberOfChannels: 1 });
    // 1.16 s of melody in whole 24 ms frames: 49 frames, 1.176 s.
    expect(meta.format.duration).toBeCloseTo(1.176, 3);
    expect(await audioDurationMs(mp3, "audio/mpeg", "mp3")).toBe(1176);
  });

  it("refuses formats it cannot encode, naming response_format", () => {
    const r = demoSpeech(speech({ format: "opus" }));
    expect(r.ok || r.error.param).toBe("response_format");
  });
});

describe("demo transcription", () => {
  it("states the duration it heard, in segments of 5 s", () => {
    const req = { model: "demo-stt", file: { bytes: Buffer.alloc(0), filename: "a.wav", mimeType: "audio/wav", durationMs: 12_000 }, translate: false, format: "json", granularities: [], stream: false, extra: {} } as TranscriptionRequest;
    const r = demoTranscription(req);
    expect(r.ok && r.value.text).toBe("Demo transcript of 12.0 seconds of audio (a.wav).");
    expect(r.ok && r.value.segments!.map((s) => [s.start, s.end])).toEqual([[0, 5], [5, 10], [10, 12]]);
  });
});
