import { describe, expect, it } from "vitest";
import { lineCharge } from "./batch-money";

describe("lineCharge", () => {
  it("charges whole micro-dollars, never more than the line's share, the whole share for an unknown cost", () => {
    expect(lineCharge(100, 41.2)).toBe(42);
    expect(lineCharge(100, 250)).toBe(100);
    expect(lineCharge(100, -5)).toBe(0);
    expect(lineCharge(100, Infinity)).toBe(100);
    expect(lineCharge(100, Number.NaN)).toBe(100);
  });
});
