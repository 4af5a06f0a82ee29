/**
 * The spine's import rules (docs/architecture.md) as a unit test, so `npm test` and CI fail when
 * a forbidden import appears: the file-level rules live in .dependency-cruiser.cjs; this test
 * adds one rule dependency-cruiser cannot say, no cycle between top-level folders.
 */
import path from "node:path";
import { cruise, type IModule } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCES = ["lib", "db", "app", "components", "server.ts", "proxy.ts"];

/**
 * Folder-to-folder imports that still close a cycle, each with what removes it. They are left out
 * before looking for cycles; the test fails when one no longer exists, so the list only shrinks.
 */
const KNOWN_BACK_EDGES: Record<string, string> = {};

/** The folder a module belongs to: app, components, db, lib/<feature>; a file at lib/ is its own (the process kernel). */
function folderOf(file: string): string | null {
  const parts = file.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : file;
  if (["app", "components", "db"].includes(parts[0]!)) return parts[0]!;
  return parts.length === 1 ? file : null;
}

function folderEdges(modules: IModule[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const m of modules) {
    if (/\.test\.tsx?$/.test(m.source)) continue; // tests compose freely
    const from = folderOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = d.coreModule || d.couldNotResolve ? null : folderOf(d.resolved);
      if (!to || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  return edges;
}

/** Pairs of folders that reach each other, once the known back edges are left out. */
function folderCycles(edges: Map<string, Set<string>>): string[] {
  const next = (a: string) => [...(edges.get(a) ?? [])].filter((b) => !(`${a} -> ${b}` in KNOWN_BACK_EDGES));
  const reaches = (a: string, b: string) => {
    const seen = new Set([a]);
    const todo = [a];
    while (todo.length) {
      for (const n of next(todo.pop()!)) {
        if (n === b) return true;
        if (!seen.has(n)) seen.add(n), todo.push(n);
      }
    }
    return false;
  };
  const out: string[] = [];
  for (const a of [...edges.keys()].sort()) for (const b of next(a)) if (a < b && reaches(b, a)) out.push(`${a} <-> ${b}`);
  return out;
}

describe("architecture", () => {
  it("keeps every import rule of .dependency-cruiser.cjs and no folder cycle", { timeout: 120_000 }, async () => {
    const cwd = process.cwd();
    process.chdir(ROOT);
    try {
      const options = await extractDepcruiseOptions(path.join(ROOT, ".dependency-cruiser.cjs"));
      const result = await cruise(SOURCES, { ...options, validate: true }, undefined, { tsConfig: extractTSConfig(path.join(ROOT, "tsconfig.json")) });
      if (typeof result.output === "string") throw new Error("unexpected string output");
      const violations = result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((c) => (typeof c === "string" ? c : c.name)).join(" → ")})` : ""}`);
      expect(violations, "see the rule's comment in .dependency-cruiser.cjs and docs/architecture.md").toEqual([]);
      const edges = folderEdges(result.output.modules);
      expect(folderCycles(edges), "a cycle between folders (docs/architecture.md)").toEqual([]);
      const gone = Object.keys(KNOWN_BACK_EDGES).filter((e) => {
        const [a, b] = e.split(" -> ");
        return !edges.get(a!)?.has(b!);
      });
      expect(gone, "fixed: delete these from KNOWN_BACK_EDGES").toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });
});
