import { describe, expect, it } from "vitest";
import { toCsv, usdCell } from "./csv";

describe("toCsv", () => {
  it("quotes commas, quotes and newlines and neutralises spreadsheet formulas", () => {
    const csv = toCsv(["a", "b"], [
      ["plain", 'say "hi", ok'],
      ["=HYPERLINK(\"x\")", "line\nbreak"],
      ["+1", -5],
      [null, new Date("2026-01-02T03:04:05Z")],
    ]);
    expect(csv.split("\r\n")).toEqual(["a,b", 'plain,"say ""hi"", ok"', `"'=HYPERLINK(""x"")","line\nbreak"`, "'+1,-5", ",2026-01-02T03:04:05.000Z", ""]);
  });

  it("keeps a negative amount a number (no apostrophe); text that only looks numeric is still escaped", () => {
    const csv = toCsv(["amount", "note"], [[usdCell(-25_000), "-1+2"], [usdCell(-1_500_000), "-0.5 refund"], ["-3", "=1-2"]]);
    expect(csv.split("\r\n")).toEqual(["amount,note", "-0.025000,'-1+2", "-1.500000,'-0.5 refund", "-3,'=1-2", ""]);
  });

  it("writes micro-USD as exact six-decimal USD", () => {
    expect([usdCell(0), usdCell(42), usdCell(-1_500_000), usdCell(12_345_678)]).toEqual(["0.000000", "0.000042", "-1.500000", "12.345678"]);
  });
});
