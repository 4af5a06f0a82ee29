/**
 * The migrator applies only migrations newer ("when") than the last one a database holds, so a
 * migration numbered or dated below one already shipped would be skipped on every upgraded
 * database while fresh ones (and CI) get it. Numbers and dates must rise together.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DIR = path.join(__dirname, "migrations");

describe("migrations journal", () => {
  it("lists every .sql file once, its number and date rising together", () => {
    const journal = JSON.parse(fs.readFileSync(path.join(DIR, "meta/_journal.json"), "utf8")) as { entries: { idx: number; when: number; tag: string }[] };
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".sql")).map((f) => f.slice(0, -4)).sort();
    expect(journal.entries.map((e) => e.tag)).toEqual(files);
    for (const [i, e] of journal.entries.entries()) {
      expect(e.idx).toBe(Number(e.tag.slice(0, 4)));
      if (i > 0) expect(e.when, `${e.tag} is dated before ${journal.entries[i - 1]!.tag}`).toBeGreaterThan(journal.entries[i - 1]!.when);
    }
  });
});
