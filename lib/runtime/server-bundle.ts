/**
 * `npm start` runs the server as one JavaScript module that esbuild compiles from server.ts when
 * it starts (~0.2 s), not as TypeScript through tsx's loader: tsx compiles with esbuild's
 * `keepNames`, which wraps every function in `__name(fn, "name")`, so each closure a request makes
 * is redefined and turned into a slow dictionary-mode object. Compiled without it, the gateway
 * spends 5–7 % less CPU per request at one client (docs/performance.md, "Nothing per request
 * outlives a young collection"; decision 0034).
 *
 * The module goes to `.next/gateway/server.mjs` (packages stay imports, resolved from the
 * project's node_modules). Servers started side by side each write their own file and rename it
 * into place. Where the folder cannot be written (the Docker image runs as another user), the
 * module its build made is used; with none at all, the caller falls back to tsx.
 */
import fs from "node:fs";
import path from "node:path";

export const SERVER_BUNDLE = ".next/gateway/server.mjs";

/** Compiles server.ts into SERVER_BUNDLE; throws when it cannot (esbuild's error, or EACCES). */
export async function buildServerBundle(root: string): Promise<string> {
  const { build } = await import("esbuild");
  const out = path.join(root, SERVER_BUNDLE);
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["server.ts"],
    outfile: out,
    write: false, // written below, so that a read-only folder fails with its own error code
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "inline", // stack traces name the TypeScript (start.ts turns source maps on)
    logLevel: "silent",
  });
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(tmp, result.outputFiles[0]!.contents);
    fs.renameSync(tmp, out);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return out;
}

/**
 * The compiled server to import: compiled now; where the folder is read-only, the one its build
 * compiled; null (run it through tsx) when neither can be had. A compile error is thrown: a
 * broken source must not start an older server.
 */
export async function serverBundle(root: string, warn: (message: string) => void): Promise<string | null> {
  try {
    return await buildServerBundle(root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const readOnly = code === "EACCES" || code === "EPERM" || code === "EROFS";
    if (!readOnly && code !== "ERR_MODULE_NOT_FOUND") throw err;
    const existing = path.join(root, SERVER_BUNDLE);
    if (readOnly && fs.existsSync(existing)) return existing;
    warn(`the server could not be compiled (${code}); running it through tsx, which costs more CPU per request`);
    return null;
  }
}
