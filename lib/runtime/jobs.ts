/**
 * Background jobs a process runs when RUN_WORKERS is not false: returning expired holds, and
 * (lib/tasks) video polling, webhooks and retention. The same code runs in `npm run worker`.
 */
import { getDb } from "../../db/client";
import { sweepExpiredHolds } from "../billing/holds";
import { logger } from "../logger";

export interface Jobs {
  stop(): Promise<void>;
}

function every(ms: number, name: string, fn: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = fn()
      .catch((err) => logger().error({ err, job: name }, "background job failed"))
      .finally(() => (running = null));
  }, ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

export async function startJobs(): Promise<Jobs> {
  const stops: (() => Promise<void>)[] = [];
  stops.push(every(30_000, "hold-sweeper", async () => sweepExpiredHolds(await getDb())));
  // TODO(video): a static import once lib/tasks/worker.ts lands.
  const workerModule = "../tasks/worker";
  const tasks: unknown = await import(workerModule).catch(() => null);
  if (tasks && typeof (tasks as { startWorker?: unknown }).startWorker === "function") {
    const ac = new AbortController();
    const done = (tasks as { startWorker: (o: { signal: AbortSignal }) => Promise<void> | void }).startWorker({ signal: ac.signal });
    stops.push(async () => {
      ac.abort();
      await done;
    });
  }
  return {
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
