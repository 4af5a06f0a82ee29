import { describe, expect, it } from "vitest";
import { textCostMicro, textHoldMicro } from "./text-cost";

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
  });
  it("the hold is the cost of the bound", () => {
    expect(textHoldMicro(100, 50, { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 })).toBe(200);
  });
});
