import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateKey, hashKey, KEY_PATTERN, looksLikeKey } from "./generate";

describe("generateKey", () => {
  it("makes 10,000 unique keys of sk- and 43 base62 characters (≥256 bits)", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const g = generateKey();
      expect(g.key).toMatch(KEY_PATTERN);
      seen.add(g.key);
    }
    expect(seen.size).toBe(10_000);
  });

  it("stores only the sha256, a short display prefix and the last four characters", () => {
    const g = generateKey();
    expect(g.hash).toBe(createHash("sha256").update(g.key).digest("hex"));
    expect(g.prefix).toBe(g.key.slice(0, 9));
    expect(g.prefix.length).toBeLessThanOrEqual("sk-".length + 6);
    expect(g.last4).toBe(g.key.slice(-4));
    expect(JSON.stringify({ ...g, key: undefined })).not.toContain(g.key.slice(9, -4));
  });

  it("uses every base62 character without bias toward the first ones", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) for (const c of generateKey().key.slice(3)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const values = [...counts.values()];
    // 86,000 draws over 62 symbols: ~1,387 each; a modulo bias would skew the low symbols by ~3 %.
    expect(Math.max(...values) / Math.min(...values)).toBeLessThan(1.25);
  });
});

describe("looksLikeKey", () => {
  it.each([
    ["", false],
    ["sk-", false],
    ["sk-short", false],
    [`sk-${"a".repeat(42)}`, false],
    [`sk-${"a".repeat(44)}`, false],
    [`sk-${"a".repeat(42)}!`, false],
    [`sk-${"ä".repeat(43)}`, false],
    [`pk-${"a".repeat(43)}`, false],
    [`sk-${"a".repeat(43)}`, true],
  ])("%s → %s", (candidate, ok) => {
    expect(looksLikeKey(candidate)).toBe(ok);
  });

  it("hashes deterministically", () => {
    expect(hashKey("sk-abc")).toBe(hashKey("sk-abc"));
    expect(hashKey("sk-abc")).not.toBe(hashKey("sk-abd"));
    // Stored hashes are SHA-256 in lower-case hex: a change of format would orphan every key.
    expect(hashKey("sk-abc")).toBe("1460db1b6902f8b1fc2a40d9381a24d0fd22c3bc1b2c6f999c521da73776fbe0");
  });
});
