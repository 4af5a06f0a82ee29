/**
 * The background worker: video task polling, webhook delivery and media retention. The server
 * starts it in-process (unless RUN_WORKERS=false) and `npm run worker` runs the very same
 * `startWorker` in its own process; any number of them may share one database.
 *
 * Jobs are rows: due tasks and due deliveries are claimed with FOR UPDATE SKIP LOCKED and a
 * lease (locked_until), so no two workers handle one job at once, and a job whose worker died
 * is picked up again when its lease runs out. Nothing lives only in memory.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Dispatcher } from "undici";
import { getDb, type DB } from "../../db/client";
import { tasks, webhookDeliveries } from "../../db/schema";
import { env } from "../env";
import { logger } from "../logger";
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
import { onWake, wakeWorkers } from "./wake";

export interface WorkerOptions {
  signal: AbortSignal;
  /** Binds a task to its upstream adapter (the gateway's loadTaskUpstream). */
  upstreamFor: TaskUpstreamLoader;
  db?: DB;
  storage?: MediaStorage;
  policy?: WebhookUrlPolicy;
  dispatcher?: Dispatcher;
  /** How often to look for due jobs while any runs. */
  tickMs?: number;
  /** The longest an idle worker sleeps before it looks again (jobs made on other instances wait this long at most). */
  idleMaxMs?: number;
  retentionEveryMs?: number;
  /** Jobs of each kind handled at once by this worker. */
  concurrency?: number;
}

/**
 * A task's lease while one turn (a poll) runs; a crashed worker's task waits this long before
 * another worker takes it. The download of a finished video extends it (task-runner.ts).
 */
const TASK_LEASE_MS = 30_000;

/** An idle worker's longest sleep (IDLE: nothing claimed, nothing running, nothing due sooner). */
const IDLE_MAX_MS = 5_000;

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

/**
 * When the next task poll or webhook attempt is due (a leased one: when its lease ends), or null
 * when nothing is pending. An idle worker sleeps until then instead of looking every tick.
 */
export async function nextDueAt(db: DB): Promise<Date | null> {
  const [t, d] = await Promise.all([
    db
      .select({ at: sql`min(greatest(${tasks.nextPollAt}, coalesce(${tasks.lockedUntil}, ${tasks.nextPollAt})))`.mapWith(tasks.nextPollAt) })
      .from(tasks)
      .where(inArray(tasks.status, ["queued", "in_progress"])),
    db
      .select({ at: sql`min(greatest(${webhookDeliveries.nextAttemptAt}, coalesce(${webhookDeliveries.lockedUntil}, ${webhookDeliveries.nextAttemptAt})))`.mapWith(webhookDeliveries.nextAttemptAt) })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.state, "pending")),
  ]);
  const times = [t[0]?.at, d[0]?.at].filter((x): x is Date => x instanceof Date);
  return times.length ? new Date(Math.min(...times.map((x) => x.getTime()))) : null;
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
  /** No task turn or delivery running (an alert pass is housekeeping: it queues no work of its own to wait for). */
  const idle = () => inflight.size === (alertsBusy ? 1 : 0);
  return { tick, inflight, concurrency, log, done, db, idle };
}

export async function startWorker(opts: WorkerOptions): Promise<void> {
  const w = makeWorker(opts, opts.db ?? (await getDb()));
  const tickMs = opts.tickMs ?? 500;
  const idleMaxMs = Math.max(tickMs, opts.idleMaxMs ?? IDLE_MAX_MS);
  // A wake while the worker looks (not only while it sleeps) must not be lost: it may be work
  // that look did not see, so the worker looks again at once instead of sleeping.
  let woken = false;
  let cutNap: (() => void) | null = null;
  const off = onWake(() => {
    woken = true;
    cutNap?.();
  });
  const nap = async (ms: number) => {
    if (woken || ms <= 0) return;
    const ac = new AbortController();
    cutNap = () => ac.abort();
    opts.signal.addEventListener("abort", cutNap, { once: true });
    try {
      await sleep(ms, ac.signal);
    } finally {
      opts.signal.removeEventListener("abort", cutNap);
      cutNap = null;
    }
  };
  w.log.info("worker started");
  while (!opts.signal.aborted) {
    woken = false;
    const claimed = await w.tick();
    // Busy: look again at once for more; running: every tick (what runs may queue more);
    // idle: until the next job is due, at most idleMaxMs, or a wake-up.
    let ms = claimed > 0 && w.inflight.size < w.concurrency ? 0 : tickMs;
    if (claimed === 0 && w.idle()) {
      const due = await nextDueAt(w.db).catch(() => null);
      ms = Math.min(idleMaxMs, Math.max(tickMs, due ? due.getTime() - Date.now() : idleMaxMs));
    }
    await nap(ms);
  }
  off();
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
