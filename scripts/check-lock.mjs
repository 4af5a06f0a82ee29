#!/usr/bin/env node
/**
 * Fails loudly when package-lock.json lacks an entry that `npm ci` needs on some platform:
 * every dependency and optional dependency of every locked package must itself be locked
 * (found the way Node resolves it: the package's own node_modules, then its parents'). The
 * usual culprit is a platform build (`@next/swc-darwin-arm64`, `@tailwindcss/oxide-win32-…`,
 * `lightningcss-…`, `@esbuild/…`) left out when the lock was written, so `npm ci` works on
 * the writer's machine and refuses on a Mac or arm64 (npm/cli#8320). Plain JavaScript with no
 * imports beyond node: it runs before `npm ci`, with no node_modules.
 *
 * Usage: node scripts/check-lock.mjs [path/to/package-lock.json]   (fix: npm run lock)
 *        node scripts/check-lock.mjs --record-unpublished FILE     (npm run lock does this)
 */
import fs from "node:fs";
import path from "node:path";

const recordUnpublished = process.argv.includes("--record-unpublished");
const fileArg = process.argv.slice(2).find((a) => !a.startsWith("--"));
const lockPath = path.resolve(fileArg ?? path.join(import.meta.dirname, "..", "package-lock.json"));
const lock = JSON.parse(fs.readFileSync(lockPath, "utf8"));
const packages = lock.packages ?? {};

/** Where Node would find `name` when required from the package installed at `from`. */
function resolve(from, name) {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return null;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut < 0 ? "" : dir.slice(0, cut);
  }
}

/**
 * Packages whose other-platform builds the project's registry does not publish at all (no version
 * has them), so npm cannot write their entries. `npm ci` still refuses a lock without them, on
 * every platform; with a bare entry (version, optional) it accepts the lock and skips a build it
 * cannot fetch like any failed optional dependency (tried: npm 11.19, linux-x64). So `npm run
 * lock` records such bare entries (--record-unpublished); a registry that has the builds serves
 * them by name and version. Only the dev-only coding-agent CLIs of tests/agents.
 */
const UNPUBLISHED_BUILDS = new Set(["node_modules/opencode-ai"]);

if (recordUnpublished) {
  let added = 0;
  for (const where of UNPUBLISHED_BUILDS) {
    const entry = packages[where];
    for (const [name, version] of Object.entries(entry?.optionalDependencies ?? {})) {
      if (resolve(where, name)) continue;
      packages[`node_modules/${name}`] = { version, ...(entry.dev ? { dev: true } : {}), optional: true };
      added++;
    }
  }
  if (added) {
    lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
    fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
    console.error(`  recorded ${added} unpublished platform build(s) as bare entries`);
  }
  process.exit(0);
}

const missing = [];
for (const [where, entry] of Object.entries(packages)) {
  if (where === "" || entry.link) continue;
  const wanted = { ...entry.dependencies, ...entry.optionalDependencies };
  for (const [name, range] of Object.entries(wanted)) {
    if (!resolve(where, name)) missing.push(`${name}@${range} (wanted by ${where})`);
  }
}
for (const [name, range] of Object.entries({ ...lock.packages?.[""]?.dependencies, ...lock.packages?.[""]?.devDependencies, ...lock.packages?.[""]?.optionalDependencies })) {
  if (!packages[`node_modules/${name}`]) missing.push(`${name}@${range} (wanted by package.json)`);
}

if (missing.length) {
  console.error(`✗ ${path.basename(lockPath)} lacks ${missing.length} package(s) that npm ci needs on some platform:`);
  for (const m of missing.slice(0, 40)) console.error(`    ${m}`);
  if (missing.length > 40) console.error(`    … and ${missing.length - 40} more`);
  console.error("  Rewrite the lock with `npm run lock` (scripts/lock.sh) and commit it.");
  process.exit(1);
}
console.error(`✓ ${path.basename(lockPath)}: all ${Object.keys(packages).length - 1} locked packages have their dependencies and every platform's optional builds recorded`);
