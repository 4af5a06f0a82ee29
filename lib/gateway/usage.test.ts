import { describe, expect, it } from "vitest";
import { usageFromAnthropic } from "./upstreams/anthropic-messages-response";
import { usageFromGemini } from "./upstreams/gemini-generate-response";
import { usageFromOpenAI } from "./upstreams/openai-chat-response";
import { fillUnreported, makeUsage, tokenCount, usageClasses } from "./usage";

describe("tokenCount: every upstream count is validated at the edge", () => {
  it.each([
    [5, 5],
    [0, 0],
    ["5", 5],
    [2 ** 31 + 7, 2 ** 31 + 7],
    ["4294967297", 4294967297],
    [undefined, undefined],
    [null, undefined],
    [-1, null],
    [7.5, null],
    [Infinity, null],
    [JSON.parse("1e999"), null],
    [NaN, null],
    ["many", null],
    ["7.5", null],
    ["-3", null],
    ["", null],
    ["99999999999999999", null],
    [2 ** 53, null],
    [{}, null],
    [true, null],
  ])("%j → %j", (v, expected) => {
    expect(tokenCount(v)).toBe(expected);
  });
});

describe("makeUsage", () => {
  it("keeps every class, the cache classes inside the input total", () => {
    const u = makeUsage({ inputTotal: 100, cacheRead: 60, cacheWrite5m: 10, cacheWrite1h: 20, outputTotal: 30, reasoning: 12 });
    expect(u).toMatchObject({ inputTokens: 100, outputTokens: 30, cacheReadTokens: 60, cacheWrite5mTokens: 10, cacheWrite1hTokens: 20, reasoningTokens: 12 });
    expect(usageClasses(u)).toEqual({ input: 10, cacheRead: 60, cacheWrite5m: 10, cacheWrite1h: 20, output: 18, reasoning: 12, imageOutput: 0 });
  });
  it("an unsplit cache write is a 5-minute write; what a split leaves over too", () => {
    expect(makeUsage({ inputUncached: 1, cacheWrite: 50, outputTotal: 0 })).toMatchObject({ inputTokens: 51, cacheWrite5mTokens: 50 });
    const u = makeUsage({ inputUncached: 1, cacheWrite: 50, cacheWrite1h: 30, outputTotal: 0 });
    expect(u).toMatchObject({ inputTokens: 51, cacheWrite5mTokens: 20, cacheWrite1hTokens: 30 });
  });
  it("a total below its cache parts is inconsistent: raised to them and named", () => {
    const u = makeUsage({ inputTotal: 10, cacheRead: 40, outputTotal: 1 });
    expect(u.inputTokens).toBe(40);
    expect(u.invalidFields).toEqual(["inputTotal"]);
  });
  it("bad totals are unreported (the route estimates them); bad classes are 0 and named", () => {
    const u = makeUsage({ inputTotal: "many", cacheRead: -4, outputTotal: 7.5, reasoning: JSON.parse("1e999") });
    expect(u.unreported).toEqual(["input", "output"]);
    expect(u.invalidFields).toEqual(["cacheRead", "inputTotal", "reasoning", "outputTotal"]);
    expect(u.cacheReadTokens).toBeUndefined();
    const filled = fillUnreported(u, () => 11, () => 22);
    expect(filled).toMatchObject({ inputTokens: 11, outputTokens: 22, estimated: true });
    expect(filled.unreported).toBeUndefined();
  });
  it("an estimate never falls below the cache classes the upstream did report", () => {
    const u = makeUsage({ cacheRead: 500, outputTotal: 3 });
    expect(fillUnreported(u, () => 10, () => 0).inputTokens).toBe(500);
  });
});

describe("upstream usage → canonical", () => {
  it("Anthropic: input_tokens excludes the cache; the TTL split is kept", () => {
    const u = usageFromAnthropic({
      input_tokens: 7,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      output_tokens: 40,
    });
    expect(u).toMatchObject({ inputTokens: 1307, cacheReadTokens: 1000, cacheWrite5mTokens: 100, cacheWrite1hTokens: 200, outputTokens: 40 });
  });
  it('Anthropic: a numeric string is a number, never concatenated ("5" + 0 ≠ "500")', () => {
    const u = usageFromAnthropic({ input_tokens: "5", cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: "3" });
    expect(u.inputTokens).toBe(5);
    expect(u.outputTokens).toBe(3);
    expect(u.invalidFields).toBeUndefined();
  });
  it("Anthropic stream: message_delta's counts override message_start's field by field", () => {
    const start = usageFromAnthropic({ input_tokens: 5, cache_read_input_tokens: 900, cache_creation_input_tokens: 0, output_tokens: 1 });
    const end = usageFromAnthropic({ output_tokens: 50 }, start);
    expect(end).toMatchObject({ inputTokens: 905, cacheReadTokens: 900, outputTokens: 50 });
    const end2 = usageFromAnthropic({ input_tokens: 6, cache_read_input_tokens: null, output_tokens: 51 }, start);
    expect(end2).toMatchObject({ inputTokens: 906, cacheReadTokens: 900, outputTokens: 51 });
  });
  it("OpenAI: prompt_tokens includes cached_tokens; reasoning is part of completion_tokens", () => {
    const u = usageFromOpenAI({ prompt_tokens: 1200, completion_tokens: 80, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 64 } });
    expect(usageClasses(u!)).toEqual({ input: 176, cacheRead: 1024, cacheWrite5m: 0, cacheWrite1h: 0, output: 16, reasoning: 64, imageOutput: 0 });
  });
  it("Gemini: promptTokenCount includes the cached content; thoughts are added to candidates", () => {
    const u = usageFromGemini({ promptTokenCount: 2000, cachedContentTokenCount: 1500, candidatesTokenCount: 30, thoughtsTokenCount: 70, toolUsePromptTokenCount: 5 });
    expect(u).toMatchObject({ inputTokens: 2005, cacheReadTokens: 1500, outputTokens: 100, reasoningTokens: 70 });
  });
  it("Gemini: a missing candidates count next to a prompt count is 0 (proto3 omits zeros)", () => {
    expect(usageFromGemini({ promptTokenCount: 9 })).toMatchObject({ inputTokens: 9, outputTokens: 0 });
    expect(usageFromGemini({ promptTokenCount: 9 })!.unreported).toBeUndefined();
  });
});
