/**
 * `npm run worker`: the background jobs (video task polling, webhook delivery with retries,
 * media retention, hold sweeping) in their own process, for web instances started with
 * RUN_WORKERS=false. It runs exactly what the server runs in-process (lib/runtime/jobs.ts →
 * lib/tasks/worker.ts startWorker); any number of workers may share one PostgreSQL database,
 * since jobs are claimed with FOR UPDATE SKIP LOCKED.
 *
 * On embedded PGlite the database belongs to one process: run the worker only when no server
 * holds the data folder (the server normally runs the jobs itself).
 */
import { closeDb } from "../db/client";
import { env, EnvError } from "../lib/env";
import { logger } from "../lib/logger";
import { startJobs } from "../lib/runtime/jobs";
import { acquireInstance, DataDirBusy } from "../lib/runtime/instance-lock";
import { prepareDatabase } from "../lib/runtime/prepare";

try {
  const e = env();
  const release = e.DATABASE_URL ? () => {} : acquireInstance({ kind: "server" });
  // Migrations only: the catalog is the web instances' business (they apply the config file).
  await prepareDatabase({ applyCatalog: false });
  const jobs = await startJobs();
  logger().info({ database: e.DATABASE_URL ? "postgres" : "pglite" }, "worker process running");
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger().info({ signal }, "worker process stopping");
    await jobs.stop().catch(() => {});
    await closeDb().catch(() => {});
    release();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
} catch (err) {
  if (err instanceof EnvError || err instanceof DataDirBusy) console.error(`error: ${err.message}`);
  else console.error("error: the worker could not start:", err);
  process.exit(1);
}
