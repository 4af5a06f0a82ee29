/**
 * Keeps two house rules true (docs/architecture.md): process.env is read only in lib/env.ts,
 * and process-wide state goes through lib/process-singleton.ts, not a hand-rolled globalThis cast.
 * Found on the syntax tree, so code samples inside strings (lib/playground/code-samples.ts) pass.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const DIRS = ["lib", "db", "app", "components"];
const FILES = ["server.ts", "proxy.ts"];

/** Files allowed to break a rule, each with the reason. */
const ENV_READERS: Record<string, string> = {
  "lib/env.ts": "the one reader",
  "db/testing.ts": "test helper: picks the test database",
  "proxy.ts": "NODE_ENV, which Next inlines at build time; lib/env.ts would pull zod into the proxy bundle",
};
const GLOBAL_USERS: Record<string, string> = {
  "lib/process-singleton.ts": "the one helper",
};

function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== "migrations" && e.name !== "__fixtures__") walk(rel);
      } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) out.push(rel);
    }
  };
  for (const d of DIRS) walk(d);
  return [...out, ...FILES.filter((f) => fs.existsSync(path.join(ROOT, f)))];
}

function findUses(file: string): { env: number[]; global: number[] } {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const env: number[] = [];
  const global: number[] = [];
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const visit = (n: ts.Node) => {
    if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "process" && n.name.text === "env") env.push(line(n));
    if (ts.isIdentifier(n) && n.text === "globalThis") global.push(line(n));
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { env, global };
}

describe("house rules", () => {
  const uses = sources().map((f) => ({ file: f.split(path.sep).join("/"), ...findUses(f) }));

  it("reads process.env only in lib/env.ts", () => {
    const offenders = uses.filter((u) => u.env.length && !(u.file in ENV_READERS)).map((u) => `${u.file}:${u.env.join(",")}`);
    expect(offenders, "read it through lib/env.ts").toEqual([]);
  });

  it("keeps process-wide state in processSingleton (lib/process-singleton.ts)", () => {
    const offenders = uses.filter((u) => u.global.length && !(u.file in GLOBAL_USERS)).map((u) => `${u.file}:${u.global.join(",")}`);
    expect(offenders, "use processSingleton instead of a globalThis cast").toEqual([]);
  });

  it("lists only exceptions still needed", () => {
    const has = (file: string, kind: "env" | "global") => uses.some((u) => u.file === file && u[kind].length > 0);
    const stale = [
      ...Object.keys(ENV_READERS).filter((f) => !has(f, "env")),
      ...Object.keys(GLOBAL_USERS).filter((f) => !has(f, "global")),
    ];
    expect(stale, "no longer needed: delete from the allow-lists above").toEqual([]);
  });
});
