/** The compiled server `npm start` runs: built from server.ts, packages left as imports, a broken source refused. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SERVER_BUNDLE, serverBundle } from "./server-bundle";

const roots: string[] = [];
function project(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "gw-bundle-"));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return root;
}
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

describe("serverBundle", () => {
  it("compiles server.ts and its imports into one module, without esbuild's keepNames wrappers", async () => {
    const root = project({
      "server.ts": 'import { twice } from "./lib";\nimport { EventEmitter } from "node:events";\nexport const answer: number = twice(21);\nexport const ok = typeof EventEmitter;\n',
      "lib.ts": "export function twice(n: number): number {\n  const f = (x: number) => x * 2;\n  return f(n);\n}\n",
    });
    const warnings: string[] = [];
    const file = await serverBundle(root, (m) => warnings.push(m));
    expect(file).toBe(path.join(root, SERVER_BUNDLE));
    const text = fs.readFileSync(file!, "utf8");
    expect(text).not.toContain("__name(");
    expect(text).toContain('from "node:events"');
    expect(await import(pathToFileURL(file!).href)).toMatchObject({ answer: 42, ok: "function" });
    expect(warnings).toEqual([]);
    expect(fs.readdirSync(path.dirname(file!))).toEqual(["server.mjs"]); // no temporary file left
  });

  it("refuses a source that does not compile, rather than starting the previous build", async () => {
    const root = project({ "server.ts": "export const broken = ;\n" });
    fs.mkdirSync(path.join(root, ".next/gateway"), { recursive: true });
    fs.writeFileSync(path.join(root, SERVER_BUNDLE), "export const stale = true;\n");
    await expect(serverBundle(root, () => {})).rejects.toThrow(/Unexpected/);
  });
});
