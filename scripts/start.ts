/**
 * `npm start`: builds the web console when there is no build, when the sources changed since
 * it was made, or with --build — unless a server is running from that build (it would break:
 * scripts/build-state.ts), then says so and refuses — and starts the server on its embedded
 * defaults. `--dev` runs Next in development mode instead. `--no-rebuild` starts a stale build as
 * it is (builds only when there is none): the test harness, whose servers run side by side
 * from one build that `npm test` or the tests' global setup made.
 *
 * The server itself runs compiled: server.ts and what it imports, made one JavaScript module at
 * every start (lib/runtime/server-bundle.ts says why); `--dev` runs it from source.
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { startPlan } from "../lib/runtime/build-state";
import { serverBundle } from "../lib/runtime/server-bundle";

const dev = process.argv.includes("--dev");
const forceBuild = process.argv.includes("--build");
const noRebuild = process.argv.includes("--no-rebuild");
(process.env as Record<string, string>).NODE_ENV ??= dev ? "development" : "production";

if (!dev) {
  const plan = startPlan(process.cwd(), { force: forceBuild, keepStale: noRebuild });
  if (plan.action === "refuse") {
    console.error(`error: ${plan.why}`);
    process.exit(1);
  }
  if (plan.action === "build") {
    console.error(`Building the web console (${plan.why})…`);
    const r = spawnSync("npx", ["next", "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

// Compiled to JavaScript, except in development (lib/runtime/server-bundle.ts says why).
process.setSourceMapsEnabled(true);
const bundle = dev ? null : await serverBundle(process.cwd(), (m) => console.error(`warning: ${m}`));
const { startServer, ConfigError, EnvError, DataDirBusy } = (bundle ? await import(pathToFileURL(bundle).href) : await import("../server")) as typeof import("../server");

try {
  const server = await startServer({ dev });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: shutting down`);
    await server.close().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  console.error(`Generation Gateway ready: open http://localhost:${server.port} and sign up; the first user to sign up is the admin.`);
} catch (err) {
  if (err instanceof ConfigError || err instanceof EnvError || err instanceof DataDirBusy) {
    console.error(`error: ${err.message}`);
  } else {
    console.error("error: the server could not start:", err);
  }
  process.exit(1);
}
