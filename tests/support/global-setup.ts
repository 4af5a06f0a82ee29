/** Integration tests run the built app, as `npm start` does: build once if there is no build. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export default function setup() {
  const root = path.resolve(import.meta.dirname, "../..");
  if (fs.existsSync(path.join(root, ".next/BUILD_ID"))) return;
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (r.status !== 0) throw new Error("next build failed");
}
