import { describe, expect, it } from "vitest";
import { codeHash, generateCode, normalizeCode } from "./code";

describe("redeem code text", () => {
  it("generates GW- plus four groups of four from the Crockford alphabet, all different", () => {
    const codes = new Set(Array.from({ length: 2000 }, generateCode));
    expect(codes.size).toBe(2000);
    for (const c of codes) expect(c).toMatch(/^GW-[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
  });

  it("forgives case, spaces, dashes, a missing prefix and O/I/L", () => {
    const c = generateCode();
    const n = normalizeCode(c)!;
    expect(n).toHaveLength(16);
    expect(normalizeCode(c.toLowerCase())).toBe(n);
    expect(normalizeCode(` ${c.slice(3).replace(/-/g, " ")} `)).toBe(n);
    expect(normalizeCode("GW-0000-1111-2222-3333")).toBe(normalizeCode("gw-oooo-ilIL-2222-3333"));
    expect(codeHash(n)).toBe(codeHash(normalizeCode(c.toLowerCase())!));
  });

  it("refuses text that cannot be a code", () => {
    for (const bad of ["", "GW-", "GW-ABCD-EFGH-JKMN", "GW-ABCD-EFGH-JKMN-PQRU", "x".repeat(300)]) expect(normalizeCode(bad)).toBeNull();
  });
});
