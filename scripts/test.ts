/**
 * `npm test`: every test. Type-check and unit tests, then against the built app (rebuilt first
 * when sources are newer than the build): with DATABASE_URL set, the full integration suite, the
 * reliability suite and the Playwright console tests in Chromium; without it, the PGlite smoke
 * files (`tests/**\/*.smoke.test.ts`).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { buildIsStale } from "../lib/runtime/build-state";

const root = path.resolve(import.meta.dirname, "..");
const bin = (name: string) => path.join(root, "node_modules/.bin", name);

function run(label: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.error(`\n▶ ${label}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) {
    console.error(`✗ ${label} failed`);
    process.exit(r.status ?? 1);
  }
}

const onlyUnit = process.argv.includes("--unit");
run("type-check", bin("tsc"), ["--noEmit", "-p", "."]);
run("unit tests", bin("vitest"), ["run", "--project", "unit"]);
if (!onlyUnit) {
  if (buildIsStale(root)) run("build (sources changed since the last build)", bin("next"), ["build"], { ...process.env, NODE_ENV: "production" });
  if (process.env.DATABASE_URL) {
    run("integration tests (PostgreSQL)", bin("vitest"), ["run", "--project", "integration"]);
    run("reliability suite (PostgreSQL, Redis)", bin("vitest"), ["run", "--project", "reliability"]);
    if (fs.existsSync(path.join(root, "playwright.config.ts"))) run("console end-to-end tests (Chromium)", bin("playwright"), ["test"]);
  } else {
    console.error("\nDATABASE_URL is not set: running the PGlite smoke suite (set DATABASE_URL for the full suite).");
    run("integration smoke tests (PGlite)", bin("vitest"), ["run", "--project", "integration", "smoke"]);
  }
}
console.error("\n✓ all tests passed");
