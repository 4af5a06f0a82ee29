import { describe, expect, it } from "vitest";
import { audioCharge, speechHoldMicro, speechTokenBound, transcriptionHoldMicro, transcriptionTokenBound } from "./audio-price";

// Prices in micro-USD (per million units for token and character prices).
const TTS1 = { perMCharacters: 15_000_000 };
const WHISPER = { perSecond: 100 };
const MINI_TTS = { inputPerMTok: 600_000, audioOutputPerMTok: 12_000_000 };
const TRANSCRIBE = { inputPerMTok: 2_500_000, audioInputPerMTok: 6_000_000, outputPerMTok: 10_000_000 };

describe("audio charges", () => {
  it.each([
    ["per character, whatever the audio", TTS1, { characters: 1000, audioMs: 60_000, usage: null }, 15_000],
    ["per second of audio, to the millisecond", WHISPER, { audioMs: 4989, usage: null }, 499],
    ["per token class", MINI_TTS, { audioMs: 1000, usage: { textInputTokens: 10, audioInputTokens: 0, textOutputTokens: 0, audioOutputTokens: 21 } }, 258],
    ["every transcription class at its own price", TRANSCRIBE, { audioMs: 1000, usage: { textInputTokens: 5, audioInputTokens: 10, textOutputTokens: 9, audioOutputTokens: 0 } }, 163],
  ])("%s", (_name, price, m, micro) => {
    const bound = { textInputTokens: 0, audioInputTokens: 0, textOutputTokens: 0, audioOutputTokens: 0 };
    expect(audioCharge(price, { ...m, bound }).costMicroUsd).toBe(micro);
  });

  it("a token model without usage charges the bound of what was measured, never $0, and says so", () => {
    const bound = speechTokenBound("hello", 2);
    const c = audioCharge(MINI_TTS, { characters: 5, audioMs: 2000, usage: null, bound });
    expect(c.estimated).toBe(true);
    expect(c.costMicroUsd).toBe(Math.ceil((261 * 600_000 + 128 * 12_000_000) / 1_000_000));
    expect(c.log.usageNote).toMatch(/no usage/);
  });

  it("a per-second model whose audio cannot be decoded charges the hold (NaN), never $0", () => {
    const c = audioCharge(WHISPER, { audioMs: null, usage: null, bound: transcriptionTokenBound(0, undefined) });
    expect(c.costMicroUsd).toBeNaN();
  });

  it("the log row keeps the audio classes as parts of the totals", () => {
    const c = audioCharge(TRANSCRIBE, { audioMs: 1000, usage: { textInputTokens: 5, audioInputTokens: 10, textOutputTokens: 9, audioOutputTokens: 0 }, bound: transcriptionTokenBound(1000, "") });
    expect(c.log).toMatchObject({ inputTokens: 15, audioInputTokens: 10, outputTokens: 9, audioOutputTokens: 0, audioMs: 1000 });
  });
});

describe("audio holds bound the charge", () => {
  it("speech: characters exactly; seconds and tokens at the longest audio the input can become", () => {
    const input = "x".repeat(100);
    expect(speechHoldMicro(input, TTS1)).toBe(1500);
    expect(speechHoldMicro(input, { perSecond: 1000 })).toBe((100 * 0.4 + 5) * 1000);
    // 45 s of audio at 64 tokens a second, 100 bytes + 256 of text.
    expect(speechHoldMicro(input, MINI_TTS)).toBe(Math.ceil((356 * 600_000 + 2880 * 12_000_000) / 1_000_000));
  });

  it("transcription: the file's duration at the price, or its token bound", () => {
    expect(transcriptionHoldMicro(4989, undefined, WHISPER)).toBe(499);
    const hold = transcriptionHoldMicro(10_000, "names", TRANSCRIBE);
    // A vendor's realistic usage for 10 s (~100 audio tokens, ~30 out) is well inside it.
    expect(audioCharge(TRANSCRIBE, { audioMs: 10_000, usage: { textInputTokens: 20, audioInputTokens: 100, textOutputTokens: 30, audioOutputTokens: 0 }, bound: transcriptionTokenBound(10_000, "names") }).costMicroUsd).toBeLessThan(hold);
  });
});
