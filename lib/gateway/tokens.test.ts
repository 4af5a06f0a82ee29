import { describe, expect, it } from "vitest";
import { countWords, estimateTokens } from "./tokens";

describe("estimateTokens", () => {
  it("counts words exactly as splitting on \\s does, for every whitespace JavaScript knows", () => {
    const spaces = [..."\t\n\v\f\r \u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"];
    for (const s of spaces) expect(/\s/.test(s)).toBe(true);
    // Characters beside the spaces that \s does not take: controls, zero-width space, emoji halves.
    const others = [..."ab.\u0000\u001f\u0085\u180e\u200b\u00ff\u0100é中", "\ud83d", "\ude00"];
    let seed = 39;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    for (let round = 0; round < 500; round++) {
      let text = "";
      const length = rand(60);
      for (let i = 0; i < length; i++) text += rand(3) === 0 ? spaces[rand(spaces.length)] : others[rand(others.length)];
      expect(countWords(text), JSON.stringify(text)).toBe(text.split(/\s+/).filter(Boolean).length);
    }
  });

  it("is about four characters a token, never fewer than the words", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcdefgh")).toBe(2);
    expect(estimateTokens("a b c d e f")).toBe(6);
    expect(estimateTokens("  leading and trailing  ")).toBe(6);
  });
});
