/**
 * The background worker: video task polling, webhook delivery and media retention. The server
 * starts it in-process (unless RUN_WORKERS=false) and `npm run worker` runs the very same
 * `startWorker` in its own process; any number of them may share one database.
 *
 * Jobs are rows: due tasks and due deliveries are claimed with FOR UPDATE SKIP LOCKED and a
 * lease (locked_until), so no two workers handle one job at once, and a job whose worker died
 * is picked up again when its lease runs out. Nothing lives only in memory.
 */
import { and, asc, inArray, isNull, lt, lte, or } from "drizzle-orm";
import type { Dispatcher } from "undici";
import { getDb, type DB } from "../../db/client";
import { tasks } from "../../db/schema";
import { env } from "../env";
import { logger } from "../logger";
import { processSingleton } from "../process-singleton";
import { sleep } from "../sleep";
import { getMediaStorage } from "../storage/get-media-storage";
import type { MediaStorage } from "../storage/media-storage";
import { runRetention } from "./retention";
import type { WebhookUrlPolicy } from "./ssrf";
import type { TaskRow } from "./task-render";
import { runTaskTurn } from "./task-runner";
import type { TaskUpstreamLoader } from "./task-upstream";
import { webhookPolicy } from "./webhook-policy";
import { chargeDueAutoTopups } from "../billing/auto-topup";
import { stripePayments } from "../billing/stripe";
import { dispatchAlerts } from "./alert-delivery";
import { claimDueDeliveries, runDelivery } from "./webhook-queue";

export interface WorkerOptions {
  signal: AbortSignal;
  /** Binds a task to its upstream adapter (the gateway's loadTaskUpstream). */
  upstreamFor: TaskUpstreamLoader;
  db?: DB;
  storage?: MediaStorage;
  policy?: WebhookUrlPolicy;
  dispatcher?: Dispatcher;
  /** How often to look for due jobs when idle. */
  tickMs?: number;
  retentionEveryMs?: number;
  /** Jobs of each kind handled at once by this worker. */
  concurrency?: number;
}

/**
 * A task's lease while one turn (a poll) runs; a crashed worker's task waits this long before
 * another worker takes it. The download of a finished video extends it (task-runner.ts).
 */
const TASK_LEASE_MS = 30_000;

export async function claimDueTasks(db: DB, now: Date, limit: number, leaseMs = TASK_LEASE_MS): Promise<TaskRow[]> {
  const due = db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        inArray(tasks.status, ["queued", "in_progress"]),
        lte(tasks.nextPollAt, now),
        or(isNull(tasks.lockedUntil), lt(tasks.lockedUntil, now)),
      ),
    )
    .orderBy(asc(tasks.nextPollAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(tasks)
    .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
    .where(inArray(tasks.id, due))
    .returning();
}

const sleepers = processSingleton("gateway.workerWake", () => new Set<() => void>());

/** Lets a submission or a console resend start work now instead of at the next tick. */
export function wakeWorkers(): void {
  for (const w of sleepers()) w();
}

/** Sleeps until the next tick, shutdown, or wakeWorkers(). */
async function nap(ms: number, signal: AbortSignal): Promise<void> {
  const woken = new AbortController();
  const wake = () => woken.abort();
  sleepers().add(wake);
  signal.addEventListener("abort", wake, { once: true });
  try {
    await sleep(ms, woken.signal);
  } finally {
    sleepers().delete(wake);
    signal.removeEventListener("abort", wake);
  }
}

/**
 * One worker's state and its tick: claim what is due (tasks, webhook deliveries) up to the free
 * concurrency and start it, start an alert pass unless one runs, media retention when it is
 * due. Shared by the long-running loop (startWorker) and the bounded pass a cron route runs
 * (runWorkerPass).
 */
function makeWorker(opts: Omit<WorkerOptions, "signal"> & { signal?: AbortSignal; once?: boolean }, db: DB) {
  const e = env();
  const storage = opts.storage ?? getMediaStorage();
  const wp = opts.policy && opts.dispatcher ? { policy: opts.policy, dispatcher: opts.dispatcher } : webhookPolicy();
  const concurrency = opts.concurrency ?? 8;
  const retentionEveryMs = opts.retentionEveryMs ?? 10 * 60_000;
  const log = logger().child({ component: "worker" });
  const inflight = new Set<Promise<void>>();
  const done = { tasks: 0, deliveries: 0, retention: 0 };
  let lastRetention = 0;
  let alertsBusy = false;
  /** A bounded pass (`once`) runs alerts and retention on its first tick only. */
  let ticks = 0;

  const track = (p: Promise<void>) => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  /** Returns how many jobs it claimed. */
  const tick = async (): Promise<number> => {
    let claimed = 0;
    const housekeeping = !opts.once || ticks++ === 0;
    try {
      const now = new Date();
      const free = concurrency - inflight.size;
      if (free > 0) {
        const due = await claimDueTasks(db, now, free);
        claimed += due.length;
        done.tasks += due.length;
        for (const t of due) {
          track(
            runTaskTurn(t, { db, storage, pollIntervalMs: e.TASK_POLL_INTERVAL_MS, publicBaseUrl: e.publicBaseUrl, upstreamFor: opts.upstreamFor, signal: opts.signal }).catch((err) =>
              log.error({ err, taskId: t.id }, "task turn failed; it is retried when its lease runs out"),
            ),
          );
        }
        const deliveries = await claimDueDeliveries(db, now, Math.max(1, concurrency - inflight.size), e.WEBHOOK_TIMEOUT_MS + 30_000);
        claimed += deliveries.length;
        done.deliveries += deliveries.length;
        for (const d of deliveries) {
          track(
            runDelivery(d, { db, ...wp, timeoutMs: e.WEBHOOK_TIMEOUT_MS, scheduleS: e.WEBHOOK_RETRY_SCHEDULE_S })
              .then(() => undefined)
              .catch((err) => log.error({ err, deliveryId: d.id }, "webhook delivery failed; it is retried when its lease runs out")),
          );
        }
      }
      if (!alertsBusy && housekeeping) {
        // Auto top-ups wait on Stripe and alert emails on SMTP: off the loop, one pass at a time
        // per worker; the top-ups first, so their alerts go out in the same pass.
        alertsBusy = true;
        const stripe = stripePayments();
        track(
          (stripe ? chargeDueAutoTopups(db, stripe) : Promise.resolve(0))
            .then(async (n) => n + (await dispatchAlerts(db)))
            .then((n) => void (n > 0 && wakeWorkers()))
            .catch((err) => log.error({ err }, "alert dispatch failed; retried next tick"))
            .finally(() => (alertsBusy = false)),
        );
      }
      if (housekeeping && Date.now() - lastRetention >= retentionEveryMs) {
        lastRetention = Date.now();
        done.retention += await runRetention(db, storage);
      }
    } catch (err) {
      log.error({ err }, "worker loop error");
    }
    return claimed;
  };
  return { tick, inflight, concurrency, log, done };
}

export async function startWorker(opts: WorkerOptions): Promise<void> {
  const w = makeWorker(opts, opts.db ?? (await getDb()));
  const tickMs = opts.tickMs ?? 500;
  w.log.info("worker started");
  while (!opts.signal.aborted) {
    const claimed = await w.tick();
    // Busy: look again at once for more; idle: wait for the next tick or a wake-up.
    await nap(claimed > 0 && w.inflight.size < w.concurrency ? 0 : tickMs, opts.signal);
  }
  await Promise.allSettled([...w.inflight]);
  w.log.info("worker stopped");
}

/** What one bounded pass did: jobs started (each runs to its end), media files retired. */
export interface WorkerPass {
  tasks: number;
  deliveries: number;
  retention: number;
}

/**
 * One bounded pass of the worker (GET /api/cron/tick, lib/runtime/cron.ts): claims and runs
 * whatever is due until nothing is or `until` (epoch ms) has passed, then waits for what it
 * started — a task turn and a delivery each have their own timeouts. Jobs it does not reach wait
 * for the next pass; a job it claimed and could not finish (the function was stopped) is taken
 * again when its lease runs out, exactly as after a worker crash.
 */
export async function runWorkerPass(opts: Omit<WorkerOptions, "signal"> & { until: number }): Promise<WorkerPass> {
  const w = makeWorker({ ...opts, once: true, retentionEveryMs: 0 }, opts.db ?? (await getDb()));
  while (Date.now() < opts.until) {
    const claimed = await w.tick();
    if (!claimed && !w.inflight.size) break;
    // Wait for a slot (or for the work that may make more due: a finished turn enqueues its webhook).
    if (w.inflight.size) await Promise.race([Promise.race([...w.inflight]), sleep(Math.max(0, opts.until - Date.now()))]);
  }
  await Promise.allSettled([...w.inflight]);
  return { ...w.done };
}
