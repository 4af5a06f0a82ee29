/**
 * The repository stands alone: docs/README.md indexes every page and decision, the README stays
 * the front door (≤ 200 lines), and nothing tracked points at files outside the repository or at
 * one machine's paths.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const read = (p: string) => fs.readFileSync(path.join(root, p), "utf8");

it("docs/README.md links every page of docs/ and every decision", () => {
  const index = read("docs/README.md");
  const pages = fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md") && f !== "README.md");
  const decisions = fs.readdirSync(path.join(root, "docs/decisions")).map((f) => `decisions/${f}`);
  const missing = [...pages, ...decisions].filter((f) => !index.includes(`](${f})`));
  expect(missing).toEqual([]);
});

it("the README is at most 200 lines", () => {
  expect(read("README.md").split("\n").length).toBeLessThanOrEqual(200);
});

it("no tracked file cites the design notes outside the repository or a machine's path", () => {
  const files = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => /\.(ts|tsx|mjs|cjs|md|json)$/.test(f) && !f.endsWith("package-lock.json") && f !== "scripts/docs.test.ts");
  const outside = /(?<![\w/])DESIGN\.md|\/work\/|\.\.\/shared\/|shared\/(spec|reference|research)\//;
  const hits = files.filter((f) => fs.existsSync(path.join(root, f)) && outside.test(read(f)));
  expect(hits).toEqual([]);
});
