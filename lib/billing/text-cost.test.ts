import { describe, expect, it } from "vitest";
import { affordableMaxTokens, textClassPrices, textCostMicro, textHoldMicro, textPriceSnapshot } from "./text-cost";

describe("textCostMicro", () => {
  it.each([
    [{ inputTokens: 1000, outputTokens: 333 }, { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 }, 1666],
    // 3 USD / 15 USD per million: 0.003 + 0.015 = 0.018 µUSD per pair → rounded up once per request.
    [{ inputTokens: 1, outputTokens: 1 }, { inputPerMTok: 3, outputPerMTok: 15 }, 1],
    [{ inputTokens: 10, outputTokens: 0 }, { inputPerMTok: 3_000_000 }, 30],
    [{ inputTokens: 0, outputTokens: 0 }, { inputPerMTok: 3_000_000, outputPerMTok: 15_000_000 }, 0],
    [{ inputTokens: 123_456_789, outputTokens: 987_654 }, { inputPerMTok: 2_500_000, outputPerMTok: 10_000_000 }, 308_641_973 + 9_876_540],
  ])("%j at %j = %i µUSD", (tokens, price, expected) => {
    expect(textCostMicro(tokens, price)).toBe(expected);
  });
  it("rounds up once per request, not per part", () => {
    expect(textCostMicro({ inputTokens: 1, outputTokens: 1 }, { inputPerMTok: 500_000, outputPerMTok: 500_000 })).toBe(1);
    // Six classes of 0.1 µUSD each: 0.6 → 1, not 6.
    const p = { inputPerMTok: 100_000, outputPerMTok: 100_000, cacheReadPerMTok: 100_000, cacheWrite5mPerMTok: 100_000, cacheWrite1hPerMTok: 100_000, reasoningPerMTok: 100_000 };
    expect(textCostMicro({ inputTokens: 4, cacheReadTokens: 1, cacheWrite5mTokens: 1, cacheWrite1hTokens: 1, outputTokens: 2, reasoningTokens: 1 }, p)).toBe(1);
  });

  // Claude Sonnet-like prices: 3 / 15 USD, reads 0.30, 5 m writes 3.75, 1 h writes 6.
  const sonnet = { inputPerMTok: 3_000_000, outputPerMTok: 15_000_000, cacheReadPerMTok: 300_000, cacheWrite5mPerMTok: 3_750_000, cacheWrite1hPerMTok: 6_000_000 };
  it("bills each class at its own price: Σ class × price", () => {
    // uncached 1,000 × 3 + read 100,000 × 0.3 + 5 m 2,000 × 3.75 + 1 h 4,000 × 6 + out 500 × 15 (per million)
    // = 3,000 + 30,000 + 7,500 + 24,000 + 7,500 µUSD
    const u = { inputTokens: 107_000, cacheReadTokens: 100_000, cacheWrite5mTokens: 2_000, cacheWrite1hTokens: 4_000, outputTokens: 500 };
    expect(textCostMicro(u, sonnet)).toBe(72_000);
  });
  it("a class without its own price falls back to the input (cache) or output (reasoning) price", () => {
    const u = { inputTokens: 1_000_000, cacheReadTokens: 400_000, cacheWrite1hTokens: 100_000, outputTokens: 1_000_000, reasoningTokens: 600_000 };
    expect(textCostMicro(u, { inputPerMTok: 2_000_000, outputPerMTok: 8_000_000 })).toBe(2_000_000 + 8_000_000);
    expect(textCostMicro(u, { inputPerMTok: 2_000_000, outputPerMTok: 8_000_000, reasoningPerMTok: 4_000_000 })).toBe(2_000_000 + 400_000 * 8 + 600_000 * 4);
  });
  it("counts beyond 2³¹ stay exact", () => {
    expect(textCostMicro({ inputTokens: 2 ** 33, outputTokens: 0 }, { inputPerMTok: 1_000_000 })).toBe(2 ** 33);
  });
});

describe("textHoldMicro", () => {
  it("the hold is the cost of the bound", () => {
    expect(textHoldMicro(100, 50, { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 })).toBe(200);
  });
  it("prices the prompt bound at the highest prompt-class price, the output bound at the highest output price", () => {
    expect(textHoldMicro(1_000_000, 0, sonnetLike())).toBe(6_000_000);
    expect(textHoldMicro(0, 1_000_000, { inputPerMTok: 1, outputPerMTok: 2_000_000, reasoningPerMTok: 5_000_000 })).toBe(5_000_000);
  });
  it("is never below the cost of any split of the bound", () => {
    const p = sonnetLike();
    const hold = textHoldMicro(10_000, 1_000, p);
    for (const [r, w5, w1] of [[10_000, 0, 0], [0, 10_000, 0], [0, 0, 10_000], [3_000, 3_000, 4_000], [0, 0, 0]])
      expect(textCostMicro({ inputTokens: 10_000, cacheReadTokens: r, cacheWrite5mTokens: w5, cacheWrite1hTokens: w1, outputTokens: 1_000 }, p)).toBeLessThanOrEqual(hold);
  });
});

describe("price snapshot", () => {
  it("records every class price used, fallbacks resolved", () => {
    expect(textClassPrices({ inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 1 })).toEqual({
      inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 1, cacheWrite5mPerMTok: 3, cacheWrite1hPerMTok: 3, reasoningPerMTok: 15, imageOutputPerMTok: 15,
    });
    expect(textPriceSnapshot({ inputPerMTok: 3 })).toMatchObject({ cacheWrite1hPerMTok: 3, outputPerMTok: 0 });
    // A model that does not draw keeps its six classes in the snapshot; one that draws names its image price.
    expect(textPriceSnapshot({ inputPerMTok: 3, outputPerMTok: 15 })).not.toHaveProperty("imageOutputPerMTok");
    expect(textPriceSnapshot({ inputPerMTok: 3, outputPerMTok: 15, imageOutputPerMTok: 30 })).toMatchObject({ imageOutputPerMTok: 30 });
  });

  it("bills image tokens a text model drew at their own price, and holds the cap at the dearest output class (decision 0073)", () => {
    const p = { inputPerMTok: 300_000, outputPerMTok: 2_500_000, imageOutputPerMTok: 30_000_000 };
    // 2,000 in × 0.3 + 12 text out × 2.5 + 1,290 image out × 30 µUSD.
    expect(textCostMicro({ inputTokens: 2000, outputTokens: 1302, imageOutputTokens: 1290 }, p)).toBe(600 + 30 + 38_700);
    // Without its own price the image class is output.
    expect(textCostMicro({ inputTokens: 0, outputTokens: 100, imageOutputTokens: 60 }, { inputPerMTok: 1, outputPerMTok: 1_000_000 })).toBe(100);
    expect(textHoldMicro(0, 4000, p)).toBe(120_000);
  });
});

function sonnetLike() {
  return { inputPerMTok: 3_000_000, outputPerMTok: 15_000_000, cacheReadPerMTok: 300_000, cacheWrite5mPerMTok: 3_750_000, cacheWrite1hPerMTok: 6_000_000 };
}

describe("affordableMaxTokens", () => {
  const price = { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 }; // 1 and 2 µUSD per token
  it("is the largest cap whose hold fits, exactly at the boundary", () => {
    // prompt 100 tokens = 100 µUSD; 1,000 µUSD available leaves 900 µUSD = 450 output tokens.
    expect(affordableMaxTokens(100, 1000, price)).toBe(450);
    expect(textHoldMicro(100, 450, price)).toBe(1000);
    expect(textHoldMicro(100, 451, price)).toBeGreaterThan(1000);
  });
  it("is 0 when even the prompt does not fit, and takes the dearest prompt class", () => {
    expect(affordableMaxTokens(2000, 1000, price)).toBe(0);
    expect(affordableMaxTokens(100, 1000, { ...price, cacheWrite1hPerMTok: 4_000_000 })).toBe(300);
  });
});

describe("batchTextPrice", () => {
  it("takes the discount off every class, rounded up per million, and keeps the price without one", async () => {
    const { batchTextPrice } = await import("./text-cost");
    expect(batchTextPrice({ inputPerMTok: 500_000, outputPerMTok: 1_500_000, batchDiscount: 0.5 })).toMatchObject({ inputPerMTok: 250_000, outputPerMTok: 750_000, cacheReadPerMTok: 250_000, reasoningPerMTok: 750_000 });
    // 0.7 × 1.5 is 1.0499999… in floating point: still exactly 1,050,000, never one micro-dollar more or less.
    expect(batchTextPrice({ inputPerMTok: 3, outputPerMTok: 1_500_000, batchDiscount: 0.3 })).toMatchObject({ inputPerMTok: 3, outputPerMTok: 1_050_000 });
    expect(batchTextPrice({ inputPerMTok: 2_000_000, outputPerMTok: 8_000_000 })).toMatchObject({ inputPerMTok: 2_000_000, outputPerMTok: 8_000_000 });
  });
});
