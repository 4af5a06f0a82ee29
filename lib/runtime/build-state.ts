/**
 * Whether the console build (`.next`) is older than the sources, and which servers run from it.
 *
 * `npm start` rebuilds a stale build before it starts, and `npm run build` / `npm start` refuse
 * to rebuild while a server of this folder runs from the build: Next loads page chunks lazily
 * from `.next`, so replacing it under a running server makes pages answer 500
 * (ChunkLoadError) until a restart. A deploy stops the server, builds, then starts (or builds
 * in another checkout). Each running server leaves `.next/running/<pid>`; a file whose process
 * is gone (a crash) does not count.
 */
import fs from "node:fs";
import path from "node:path";

/** Folders and files whose change needs a new build (tests and the custom server do not). */
const SOURCE_DIRS = ["app", "components", "lib", "db"];
const SOURCE_FILES = ["next.config.ts", "package.json", "postcss.config.mjs"];

function newestSource(dir: string): number {
  let newest = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === "node_modules" || e.name.startsWith(".")) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(tsx?|css|json|mjs)$/.test(e.name) && !e.name.endsWith(".test.ts")) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return newest;
}

export function hasBuild(root: string): boolean {
  return fs.existsSync(path.join(root, ".next/BUILD_ID"));
}

/** True when there is no build, or a source file changed after it was made. */
export function buildIsStale(root: string): boolean {
  const id = path.join(root, ".next/BUILD_ID");
  if (!fs.existsSync(id)) return true;
  const built = fs.statSync(id).mtimeMs;
  const sources = SOURCE_DIRS.map((d) => newestSource(path.join(root, d)));
  const files = SOURCE_FILES.map((f) => path.join(root, f)).filter((f) => fs.existsSync(f)).map((f) => fs.statSync(f).mtimeMs);
  return Math.max(0, ...sources, ...files) > built;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // exists, another user's
  }
}

/** Pids of the live servers running from this folder's build. */
export function runningServers(root: string): number[] {
  const dir = path.join(root, ".next/running");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0 && alive(pid));
}

/** Marks this process as serving the build; the returned function removes the mark. */
export function markRunning(root: string, pid = process.pid): () => void {
  const dir = path.join(root, ".next/running");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, String(pid));
  fs.writeFileSync(file, "");
  return () => fs.rmSync(file, { force: true });
}

export type StartPlan = { action: "start" } | { action: "build"; why: string } | { action: "refuse"; why: string };

/** What `npm start` does: build first when asked or stale, unless a running server uses the build. */
export function startPlan(root: string, opts: { force?: boolean; keepStale?: boolean } = {}): StartPlan {
  const why = opts.force
    ? "--build was given"
    : !hasBuild(root)
      ? "there is no build yet"
      : !opts.keepStale && buildIsStale(root)
        ? "sources changed since the last build"
        : null;
  if (!why) return { action: "start" };
  const running = runningServers(root);
  if (running.length && hasBuild(root))
    return {
      action: "refuse",
      why: `${why}, but a server (pid ${running.join(", ")}) is running from this build and rebuilding under it would break its pages. Stop it, then start again (it rebuilds), or build in another checkout.`,
    };
  return { action: "build", why };
}
