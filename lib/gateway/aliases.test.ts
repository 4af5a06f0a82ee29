import { describe, expect, it } from "vitest";
import { aliasTable, matchAlias } from "./aliases";

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
