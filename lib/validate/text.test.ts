import { describe, expect, it } from "vitest";
import { findUnstorableInJson, findUnstorableText } from "./text";

/** What the body parser does: parse, then the check that may skip the walk. */
const check = (json: string) => findUnstorableInJson(json, JSON.parse(json));

describe("findUnstorableInJson", () => {
  it("names a NUL or a lone surrogate written as an escape, in either case", () => {
    expect(check(String.raw`{"a":"x\u0000y"}`)).toBe("a");
    expect(check(String.raw`{"m":[{"t":"ok"},{"t":"\ud800"}]}`)).toBe("m.1.t");
    expect(check(String.raw`{"m":"\uDFFF"}`)).toBe("m");
    expect(check(String.raw`{"m":"end\uDbff"}`)).toBe("m");
    expect(check(String.raw`{"k\u0000":1}`)).toBe("k\u0000");
  });

  it("lets storable text through: a paired surrogate, other escapes, an escaped backslash before u0000", () => {
    expect(check(String.raw`{"a":"\ud83d\ude00 caf\u00e9 \u4e2d \n \" \/"}`)).toBeNull();
    expect(check(String.raw`{"a":"C:\\u0000\\udc00"}`)).toBeNull();
    expect(check(String.raw`{"a":"\u00000"}`)).toBe("a");
    expect(check(`{"a":"${"plain text ".repeat(1000)}"}`)).toBeNull();
  });

  it("agrees with the full walk on escapes drawn at random (Python's ensure_ascii bodies are all escapes)", () => {
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;
    const pieces = ["a", " ", "\\\\", "\\n", '\\"', "\\u0000", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\uDC00", "\\uD7FF", "\\uE000", "\\u0030", "u0000", "\\u000a"];
    for (let n = 0; n < 2000; n++) {
      const s = Array.from({ length: 1 + Math.floor(Math.random() * 6) }, () => pick(pieces)).join("");
      const json = `{"x":["${s}"]}`;
      expect(check(json), json).toBe(findUnstorableText(JSON.parse(json)));
    }
  });
});
