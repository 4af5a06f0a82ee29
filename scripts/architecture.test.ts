/**
 * The spine's import rules (docs/architecture.md) as a unit test, so `npm test` and CI fail when
 * a forbidden import appears: the file-level rules live in .dependency-cruiser.cjs; this test
 * adds two rules dependency-cruiser cannot say: no cycle between top-level folders, and every
 * folder imports only the folders its row of the "may import" table in docs/architecture.md lists.
 */
import { existsSync, readFileSync } from "node:fs";
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

/** The folder of the "may import" table: as folderOf, but lib/gateway's sub-folders are their own, and the kernel is `lib/*.ts`. */
export function tableFolderOf(file: string): string | null {
  const parts = file.split("/");
  if (parts[0] === "lib" && parts[1] === "gateway") return parts.length > 3 ? `lib/gateway/${parts[2]}` : "lib/gateway";
  if (parts[0] === "lib" && parts.length === 2) return "lib/*.ts";
  return folderOf(file);
}

function folderEdges(modules: IModule[], folder: (file: string) => string | null = folderOf): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const m of modules) {
    if (/\.test\.tsx?$/.test(m.source) || m.coreModule || m.couldNotResolve) continue; // tests compose freely
    const from = folder(m.source);
    if (!from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    for (const d of m.dependencies) {
      const to = d.coreModule || d.couldNotResolve ? null : folder(d.resolved);
      if (!to || to === from) continue;
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

/** A folder's row: the folders it may import, or every folder ("anything"). */
export type MayImport = Map<string, Set<string> | "anything">;

/**
 * The table under "## What each folder may import" in docs/architecture.md: `folder` | the
 * backticked folders it may import (text in parentheses is commentary), "anything" or "nothing".
 */
export function readMayImport(markdown: string): MayImport {
  const section = markdown.split(/^## What each folder may import$/m)[1];
  if (!section) throw new Error('docs/architecture.md has no "## What each folder may import" section');
  const table: MayImport = new Map();
  for (const line of section.split(/^## /m)[0]!.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 4 || !cells[1]!.startsWith("`")) continue;
    const folder = cells[1]!.replaceAll("`", "");
    const allowed = cells[2]!.split("(")[0]!;
    if (table.has(folder)) throw new Error(`docs/architecture.md: two rows for ${folder}`);
    table.set(folder, allowed.trim() === "anything" ? "anything" : new Set([...allowed.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));
  }
  return table;
}

/** The imports between folders the table does not allow, and the folders it has no row for. */
export function forbiddenImports(edges: Map<string, Set<string>>, table: MayImport): string[] {
  const out: string[] = [];
  for (const [from, tos] of [...edges].sort(([a], [b]) => a.localeCompare(b))) {
    const row = table.get(from);
    if (!row) out.push(`${from}: no row in the "may import" table`);
    else if (row !== "anything") for (const to of [...tos].sort()) if (!row.has(to)) out.push(`${from} → ${to}`);
  }
  return out;
}

const ARCHITECTURE_MD = path.join(ROOT, "docs/architecture.md");

describe("the may-import table", () => {
  const table = readMayImport(readFileSync(ARCHITECTURE_MD, "utf8"));

  it("refuses an import its row does not list, and a folder without a row", () => {
    const edges = new Map([
      ["lib/gateway/upstreams", new Set(["lib/gateway/media", "lib/gateway/images"])],
      ["lib/gateway/media", new Set(["lib/gateway"])],
      ["lib/gateway/new-capability", new Set(["lib/gateway"])],
      ["app", new Set(["lib/gateway/routes"])],
    ]);
    expect(forbiddenImports(edges, table)).toEqual(["lib/gateway/new-capability: no row in the \"may import\" table", "lib/gateway/upstreams → lib/gateway/images"]);
  });

  it("names only folders that exist", () => {
    const names = new Set<string>();
    for (const [from, row] of table) {
      names.add(from);
      if (row !== "anything") for (const to of row) names.add(to);
    }
    const missing = [...names].filter((n) => n !== "lib/*.ts" && !existsSync(path.join(ROOT, n)));
    expect(missing, "rows or entries of folders that are gone").toEqual([]);
  });
});

describe("architecture", () => {
  it("keeps every import rule of .dependency-cruiser.cjs, no folder cycle, and the may-import table", { timeout: 120_000 }, async () => {
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
      const fine = folderEdges(result.output.modules, tableFolderOf);
      expect(forbiddenImports(fine, readMayImport(readFileSync(ARCHITECTURE_MD, "utf8"))), "an import the \"may import\" table of docs/architecture.md does not allow: add it there in this change, or move the shared part down").toEqual([]);
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
