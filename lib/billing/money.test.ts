import { describe, expect, it } from "vitest";
import { formatUsd, parseUsd, tokenCostMicro, usdToMicro } from "./money";

describe("money", () => {
  it.each([
    [0, 3_000_000, 0],
    [1, 3_000_000, 3],
    [1, 1, 1], // 0.000001 micro rounds up to 1
    [333, 3_000_000, 999],
    [1_000_000, 15_000_000, 15_000_000],
    [7, 150_000, 2], // 1.05 → 2
    [10_000_000, 100_000_000, 1_000_000_000],
  ])("%i tokens at %i µUSD/MTok cost %i µUSD (rounded up)", (tokens, price, expected) => {
    expect(tokenCostMicro(tokens, price)).toBe(expected);
  });

  it("converts config USD to micro-USD without float drift", () => {
    expect(usdToMicro(0.021)).toBe(21_000);
    expect(usdToMicro(0.26)).toBe(260_000);
    expect(usdToMicro(0.1 + 0.2)).toBe(300_000);
  });

  it("parses typed amounts strictly", () => {
    expect(parseUsd("10")).toBe(10_000_000);
    expect(parseUsd("0.25")).toBe(250_000);
    expect(parseUsd("0.000001")).toBe(1);
    for (const bad of ["-1", "1e3", "0.0000001", "abc", "", "1,5"]) expect(parseUsd(bad)).toBeNull();
  });

  it("formats for headers and the CLI", () => {
    expect(formatUsd(10_000_000)).toBe("10.00");
    expect(formatUsd(1)).toBe("0.000001");
    expect(formatUsd(250_000)).toBe("0.25");
    expect(formatUsd(-1_500_000)).toBe("-1.50");
  });
});
