import { describe, expect, it } from "vitest";
import { aliasTable, matchAlias, matchesPattern } from "./aliases";

const a = (id: string) => ({ id, targets: [`t-${id}`], contextFallback: false });

describe("alias precedence", () => {
  const t = aliasTable([a("claude-*"), a("claude-sonnet-4-5-*"), a("claude-sonnet-4-5-2025*"), a("gemini-*-flash"), a("*"), a("fast")]);
  it("an exact alias name beats every pattern", () => {
    expect(matchAlias(t, "fast")?.id).toBe("fast");
  });
  it("the most specific pattern wins (most literal characters)", () => {
    expect(matchAlias(t, "claude-sonnet-4-5-20250929")?.id).toBe("claude-sonnet-4-5-2025*");
    expect(matchAlias(t, "claude-sonnet-4-5-x")?.id).toBe("claude-sonnet-4-5-*");
    expect(matchAlias(t, "claude-opus-4-1")?.id).toBe("claude-*");
    expect(matchAlias(t, "gemini-2.5-flash")?.id).toBe("gemini-*-flash");
    expect(matchAlias(t, "gemini-2.5-pro")?.id).toBe("*");
  });
  it("a pattern matches the whole id, and its dots are literal", () => {
    const u = aliasTable([a("gpt-4.1*")]);
    expect(matchAlias(u, "gpt-4x1")).toBeNull();
    expect(matchAlias(u, "gpt-4.1-mini")?.id).toBe("gpt-4.1*");
    expect(matchAlias(u, "x-gpt-4.1")).toBeNull();
  });
});

describe("pattern matching in one pass", () => {
  // The semantics decision 0022 states, as the regular expression the matcher replaced.
  const reference = (pattern: string, id: string) =>
    new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join(".*")}$`).test(id);
  const pick = (s: string) => s[Math.floor(Math.random() * s.length)]!;
  const word = (alphabet: string, max: number) => Array.from({ length: Math.floor(Math.random() * (max + 1)) }, () => pick(alphabet)).join("");

  it("agrees with the regular expression on random patterns and ids (overlaps, empty parts, adjacent stars)", () => {
    for (let n = 0; n < 20000; n++) {
      const pattern = word("ab*.", 7);
      const id = word("ab.", 10);
      expect(matchesPattern(pattern.split("*"), id), `${pattern} ~ ${id}`).toBe(reference(pattern, id));
    }
  });

  it("agrees on the edge cases: a suffix overlapping the prefix, repeated parts, the empty id", () => {
    const cases: [string, string][] = [
      ["a*a", "a"], ["a*a", "aa"], ["ab*ba", "aba"], ["ab*ba", "abba"], ["*", ""], ["**", ""], ["a**b", "ab"],
      ["*a*a*", "aa"], ["*a*a*", "a"], ["claude-*-4-5-*", "claude-sonnet-4-5-2025"], ["claude-*-4-5-*", "claude-4-5-"],
      ["claude-*-4-5-*", "claude--4-5-"], ["x*y*z", "xzyz"], ["x*y*z", "xyz"], ["x*y*z", "xzy"], ["", ""], ["", "a"],
    ];
    for (const [p, id] of cases) expect(matchesPattern(p.split("*"), id), `${p} ~ ${id}`).toBe(reference(p, id));
  });

  it("a 1 MB id that almost matches a three-star pattern is answered within milliseconds", () => {
    const t = aliasTable([a("claude-*-4-5-*-x*y")]);
    const id = `claude-${"-4-5-".repeat(200_000)}`;
    const started = performance.now();
    expect(matchAlias(t, id)).toBeNull();
    expect(performance.now() - started).toBeLessThan(50);
  });
});
