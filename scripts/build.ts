/**
 * `npm run build`: `next build` and the compiled server (lib/runtime/server-bundle.ts: `npm start`
 * compiles it again at every start, but an image that cannot write its folder uses this one),
 * refused while a server runs from this folder's build (rebuilding
 * under it makes its pages answer 500 until a restart: scripts/build-state.ts).
 */
import { spawnSync } from "node:child_process";
import { runningServers } from "../lib/runtime/build-state";
import { buildServerBundle } from "../lib/runtime/server-bundle";

const running = runningServers(process.cwd());
if (running.length) {
  console.error(`error: a server (pid ${running.join(", ")}) is running from this build; rebuilding under it would break its pages. Stop it first (npm start then rebuilds by itself when sources changed), or build in another checkout.`);
  process.exit(1);
}
const r = spawnSync("npx", ["next", "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
if (r.status !== 0) process.exit(r.status ?? 1);
console.error(`Compiled the server: ${await buildServerBundle(process.cwd())}`);
