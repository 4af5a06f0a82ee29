import { describe, expect, it } from "vitest";
import { parseRange } from "./serve-media";

describe("parseRange", () => {
  it.each([
    [undefined, { kind: "none" }],
    ["bytes=0-9", { kind: "range", range: { start: 0, end: 9 } }],
    ["bytes=10-", { kind: "range", range: { start: 10, end: 99 } }],
    ["bytes=-10", { kind: "range", range: { start: 90, end: 99 } }],
    ["bytes=50-1000", { kind: "range", range: { start: 50, end: 99 } }],
    ["bytes=100-", { kind: "unsatisfiable" }],
    ["bytes=-0", { kind: "unsatisfiable" }],
    ["bytes=0-1,5-6", { kind: "none" }],
    ["items=0-1", { kind: "none" }],
    ["bytes=9-3", { kind: "none" }],
  ])("%s", (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });
});
