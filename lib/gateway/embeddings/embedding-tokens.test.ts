import { describe, expect, it } from "vitest";
import { embeddingCostMicro, estimateEmbeddingTokens, estimateTextTokens, maxEmbeddingTokens } from "./embedding-tokens";

describe("embedding token counts", () => {
  it.each([
    ["a", 1],
    ["hello world", 4],
    ["Hi, there!", 5],
    ["東京タワー", 5],
    ["   ", 1],
  ])("estimates %j as %i", (text, n) => {
    expect(estimateTextTokens(text)).toBe(n);
  });

  it("never estimates above the byte bound the hold uses", () => {
    for (const t of ["a", "!!!!", "東", "x y z", "emoji 🙂🙂", "a".repeat(1000)]) {
      expect(estimateTextTokens(t)).toBeLessThanOrEqual(maxEmbeddingTokens({ kind: "text", texts: [t] }));
    }
  });

  it("sums over inputs, and counts token arrays exactly", () => {
    expect(estimateEmbeddingTokens({ kind: "text", texts: ["a", "hello world"] })).toBe(5);
    expect(estimateEmbeddingTokens({ kind: "tokens", tokens: [[1, 2], [3]] })).toBe(3);
    expect(maxEmbeddingTokens({ kind: "tokens", tokens: [[1, 2], [3]] })).toBe(3);
    expect(maxEmbeddingTokens({ kind: "text", texts: ["ab", "東"] })).toBe(5);
  });

  it("prices tokens per million, rounded up to a whole micro-USD", () => {
    // 0.02 USD per MTok = 20,000 micro-USD per MTok
    expect(embeddingCostMicro(8, { inputPerMTok: 20_000 })).toBe(1);
    expect(embeddingCostMicro(1_000_000, { inputPerMTok: 20_000 })).toBe(20_000);
    expect(embeddingCostMicro(50, { inputPerMTok: 20_000_000 })).toBe(1000);
    expect(embeddingCostMicro(10, {})).toBe(0);
  });
});
