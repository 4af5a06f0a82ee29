import { describe, expect, it } from "vitest";
import { safeCallback } from "./callback";

const SITE = "https://gw.example.com";

describe("safeCallback", () => {
  it("keeps same-origin paths with their query and fragment", () => {
    expect(safeCallback("/keys", SITE)).toBe("/keys");
    expect(safeCallback("/usage?from=2024-01-01#top", SITE)).toBe("/usage?from=2024-01-01#top");
    expect(safeCallback("https://gw.example.com/billing", SITE)).toBe("/billing");
    expect(safeCallback("billing", SITE)).toBe("/billing");
  });

  it("refuses every way of reaching another origin", () => {
    const tricks = [
      "/\t/evil.example/x", // what %2F%09%2F decodes to: the browser drops the TAB
      "/\n/evil.example",
      "/\r\n/evil.example",
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "/\\/evil.example",
      "/.//evil.example",
      "/..//evil.example",
      " //evil.example",
      "https://evil.example/",
      "https:evil.example",
      "http://gw.example.com/", // other scheme, other origin
      "https://gw.example.com.evil.example/",
      "https://gw.example.com@evil.example/",
      "javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "\u0000//evil.example",
      "/%2F%2Fevil.example", // stays a path: kept as encoded, never decoded into //
    ];
    for (const t of tricks) {
      const out = safeCallback(t, SITE);
      expect(out.startsWith("/") && !out.startsWith("//") && !out.startsWith("/\\"), JSON.stringify(t)).toBe(true);
      expect(new URL(out, SITE).origin, JSON.stringify(t)).toBe(SITE);
    }
    expect(safeCallback("/\t/evil.example/x", SITE)).toBe("/overview");
    expect(safeCallback("https://evil.example/", SITE)).toBe("/overview");
  });

  it("falls back for nothing, garbage and very long values", () => {
    expect(safeCallback(undefined)).toBe("/overview");
    expect(safeCallback("")).toBe("/overview");
    expect(safeCallback("http://[::1")).toBe("/overview");
    expect(safeCallback(`/${"a".repeat(5000)}`)).toBe("/overview");
  });
});
