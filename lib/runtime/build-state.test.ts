import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { buildIsStale, markRunning, runningServers, startPlan } from "./build-state";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** tsx's loader by path: the scripts run with another working directory. */
const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** A checkout with one source file and a build, the source `sourceAgeS` seconds old, the build `buildAgeS`. */
function checkout(sourceAgeS: number, buildAgeS: number | null): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-build-"));
  fs.mkdirSync(path.join(dir, "lib"));
  const src = path.join(dir, "lib/x.ts");
  fs.writeFileSync(src, "export const x = 1;\n");
  const now = Date.now() / 1000;
  fs.utimesSync(src, now - sourceAgeS, now - sourceAgeS);
  if (buildAgeS !== null) {
    fs.mkdirSync(path.join(dir, ".next"));
    fs.writeFileSync(path.join(dir, ".next/BUILD_ID"), "b1");
    fs.utimesSync(path.join(dir, ".next/BUILD_ID"), now - buildAgeS, now - buildAgeS);
  }
  return dir;
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

describe("build state", () => {
  it("a build older than a source is stale; a newer one is not; none at all is", () => {
    expect(buildIsStale(checkout(60, 120))).toBe(true);
    expect(buildIsStale(checkout(120, 60))).toBe(false);
    expect(buildIsStale(checkout(60, null))).toBe(true);
  });

  it("counts only live servers running from the build", () => {
    const dir = checkout(120, 60);
    expect(runningServers(dir)).toEqual([]);
    const unmark = markRunning(dir);
    markRunning(dir, deadPid()); // a crashed server's mark
    expect(runningServers(dir)).toEqual([process.pid]);
    unmark();
    expect(runningServers(dir)).toEqual([]);
  });

  it("plans: start a fresh build, rebuild a stale one, refuse to rebuild under a running server", () => {
    expect(startPlan(checkout(120, 60))).toEqual({ action: "start" });
    expect(startPlan(checkout(60, 120))).toEqual({ action: "build", why: "sources changed since the last build" });
    expect(startPlan(checkout(60, null))).toEqual({ action: "build", why: "there is no build yet" });
    expect(startPlan(checkout(120, 60), { force: true })).toMatchObject({ action: "build" });
    expect(startPlan(checkout(60, 120), { keepStale: true })).toEqual({ action: "start" });
    const busy = checkout(60, 120);
    markRunning(busy);
    expect(startPlan(busy)).toMatchObject({ action: "refuse", why: expect.stringContaining(`pid ${process.pid}`) });
  });

  it("`npm start` and `npm run build` say so and exit 1 instead of rebuilding under a running server", () => {
    const busy = checkout(60, 120);
    markRunning(busy);
    for (const script of ["scripts/start.ts", "scripts/build.ts"]) {
      const r = spawnSync(process.execPath, ["--import", TSX, path.join(ROOT, script)], { cwd: busy, encoding: "utf8", env: { ...process.env, NODE_ENV: "production" } });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`a server (pid ${process.pid}) is running from this build`);
      expect(fs.readFileSync(path.join(busy, ".next/BUILD_ID"), "utf8")).toBe("b1"); // untouched
    }
  }, 60_000);
});
