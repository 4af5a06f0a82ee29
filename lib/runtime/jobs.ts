/**
 * Background jobs a process runs when RUN_WORKERS is not false: returning expired holds, and
 * (lib/tasks) video polling, webhooks and retention, and deleting stored responses and request-log rows past
 * their retention. The same code runs in `npm run worker`. In serverless mode none of it runs
 * on timers: `cron.ts` runs one bounded pass of the same jobs per call of GET /api/cron/tick.
 */
import { getDb } from "../../db/client";
import { sweepExpiredHolds } from "../billing/holds";
import { sweepBackgroundResponses } from "../gateway/stored-responses/background";
import { deleteExpiredResponses } from "../gateway/stored-responses/store";
import { loadTaskUpstream } from "../gateway/videos/task-upstream";
import { runBatchPass } from "../gateway/batches/runner";
import { deleteExpiredFiles } from "../gateway/files/store";
import { logger } from "../logger";
import { startWorker } from "../tasks/worker";
import { onWake } from "../tasks/wake";
import { deleteExpiredRequestLogs } from "./request-log-retention";
import { deleteExpiredCacheEntries } from "../gateway/response-cache/store";
import { deleteExpiredContentLogs } from "../content-logs/store";

/** The batch job's longest gap while it finds nothing (batches made on another instance wait this long at most). */
const IDLE_MAX_MS = 5_000;

/** How often expired holds and leases are returned: the lease expiry plus this stays under a minute. */
const HOLD_SWEEP_MS = 10_000;

export interface Jobs {
  stop(): Promise<void>;
}

/**
 * Runs `fn` every `ms`, one run at a time. With `idleMaxMs`, runs that report no work (0) widen
 * the gap, doubling up to idleMaxMs; work found, or wakeWorkers() (new work in this process),
 * brings it back to `ms`. An idle gateway then does not query the database twice a second.
 */
function every(ms: number, name: string, fn: () => Promise<number | void>, idleMaxMs = ms): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  let gap = ms;
  let next = 0;
  let wakes = 0;
  const off = onWake(() => ((wakes += 1), (gap = ms), (next = 0)));
  const timer = setInterval(() => {
    if (running || Date.now() < next) return;
    const seen = wakes;
    running = fn()
      .then((work) => {
        // A wake during the run may be work this run did not see: no widening then.
        gap = work === 0 && wakes === seen ? Math.min(idleMaxMs, gap * 2) : ms;
        next = gap > ms ? Date.now() + gap - ms : 0;
      })
      .catch((err) => logger().error({ err, job: name }, "background job failed"))
      .finally(() => (running = null));
  }, ms);
  timer.unref();
  return async () => {
    off();
    clearInterval(timer);
    await running;
  };
}

export async function startJobs(): Promise<Jobs> {
  const stops: (() => Promise<void>)[] = [];
  // With the 40-second lease expiry, a crashed instance's money is back within a minute (decision 0038).
  stops.push(every(HOLD_SWEEP_MS, "hold-sweeper", async () => sweepExpiredHolds(await getDb())));
  // Stored Responses past RESPONSES_RETENTION_DAYS (reads already hide them; this frees the rows).
  stops.push(every(10 * 60_000, "responses-retention", async () => deleteExpiredResponses(await getDb())));
  stops.push(every(10 * 60_000, "request-log-retention", async () => deleteExpiredRequestLogs(await getDb())));
  stops.push(every(10 * 60_000, "response-cache-expiry", async () => deleteExpiredCacheEntries(await getDb())));
  // Content logs past their organisation's retention (docs/content-logs.md).
  stops.push(every(10 * 60_000, "content-log-retention", async () => deleteExpiredContentLogs(await getDb())));
  // Background responses whose instance stopped: queued ones are run here, running ones failed.
  stops.push(every(10_000, "background-responses", async () => sweepBackgroundResponses(await getDb())));
  // Batch lines (at most BATCH_CONCURRENCY at once; short passes, so a stop waits for one wave) and finished batches; files past their expiry.
  stops.push(
    every(500, "batches", async () => {
      const p = await runBatchPass(await getDb(), { until: Date.now() + 5_000 });
      return p.lines + p.finalized + p.vendor;
    }, IDLE_MAX_MS),
  );
  stops.push(every(10 * 60_000, "files-retention", async () => deleteExpiredFiles(await getDb())));
  const ac = new AbortController();
  const worker = startWorker({ signal: ac.signal, upstreamFor: loadTaskUpstream });
  stops.push(async () => {
    ac.abort();
    await worker;
  });
  return {
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
