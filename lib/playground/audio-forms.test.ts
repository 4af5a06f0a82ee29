import { describe, expect, it } from "vitest";
import { readSpeechEvents, speechPriceMicro, timestamp } from "./audio-forms";

describe("playground audio rules", () => {
  it("prices per-character speech before sending, and nothing else", () => {
    expect(speechPriceMicro({ perMCharacters: 15_000_000 }, "hello")).toBe(75);
    expect(speechPriceMicro({ perSecond: 100 }, "hello")).toBeNull();
  });

  it("reads speech events back into audio and the charge", () => {
    const ev = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
    const sse = ev({ type: "speech.audio.delta", audio: btoa("RI") }) + ev({ type: "speech.audio.delta", audio: btoa("FF") }) + ev({ type: "speech.audio.done", cost_usd: "0.000075" });
    const r = readSpeechEvents(sse);
    expect(new TextDecoder().decode(r.audio)).toBe("RIFF");
    expect(r.costUsd).toBe("0.000075");
    expect(readSpeechEvents(ev({ type: "error", error: { message: "broke" } })).error).toBe("broke");
  });

  it("formats timestamps", () => {
    expect(timestamp(83.24)).toBe("1:23.2");
    expect(timestamp(59.99)).toBe("1:00.0");
    expect(timestamp(4.99)).toBe("0:05.0");
  });
});

describe("recordings as WAV", () => {
  it("writes 16-bit mono WAV that a decoder reads at the right length", async () => {
    const { parseBuffer } = await import("music-metadata");
    const { wavFromSamples } = await import("./audio-forms");
    const samples = Float32Array.from({ length: 48_000 }, (_, i) => Math.sin(i / 10));
    const meta = await parseBuffer(wavFromSamples(samples, 48_000), { mimeType: "audio/wav" }, { duration: true });
    expect(meta.format).toMatchObject({ sampleRate: 48_000, numberOfChannels: 1, duration: 1 });
  });
});
