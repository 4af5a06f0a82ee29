/**
 * One turn of the worker for one claimed task: submit it upstream if that never happened (the
 * submitting request died), otherwise poll; on completion stream the MP4 into media storage
 * and complete; on failure or timeout fail and refund. Every branch ends by releasing the
 * task's lease (or finalizing it), so a crash mid-turn only delays the task until the lease
 * runs out and another worker picks it up.
 */
import { eq } from "drizzle-orm";
import type { DB } from "../../db/client";
import { tasks, type ModelPrice } from "../../db/schema";
import { backoffMs } from "../backoff";
import { finalCost } from "../billing/video-price";
import { logger } from "../logger";
import type { MediaStorage } from "../storage/media-storage";
import { completeTask, failTask, paramsToJob, recordPollFailure, recordProgress, recordUpstreamAccepted } from "./task-lifecycle";
import type { TaskRow } from "./task-render";
import type { TaskUpstream, TaskUpstreamLoader } from "./task-upstream";
import type { Result } from "../result";

export interface RunnerDeps {
  db: DB;
  storage: MediaStorage;
  /** TASK_POLL_INTERVAL_MS: real upstreams; the demo upstream polls every second regardless. */
  pollIntervalMs: number;
  publicBaseUrl: string;
  /** The task's upstream (lib/gateway/videos/task-upstream.ts in production). */
  upstreamFor: TaskUpstreamLoader;
  now?: () => Date;
  signal?: AbortSignal;
}

const DOWNLOAD_LEASE_MS = 15 * 60_000;

/** Transient failures back off up to a minute (or 64 poll intervals), whatever the poll interval. */
function retryAt(now: Date, failures: number, baseMs: number): Date {
  return new Date(now.getTime() + backoffMs(Math.min(failures, 6), { baseMs, maxMs: 60_000, jitter: false }));
}

export function mediaKeyFor(taskId: string, index: number): string {
  return `videos/${taskId}/${index}.mp4`;
}

export async function runTaskTurn(t: TaskRow, deps: RunnerDeps): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const fin = { now, publicBaseUrl: deps.publicBaseUrl };
  if (t.deadlineAt && now >= t.deadlineAt) {
    const s = Math.round((t.deadlineAt.getTime() - t.createdAt.getTime()) / 1000);
    await failTask(deps.db, t.id, `The upstream did not finish the task within ${s} seconds; the charge was refunded.`, fin);
    return;
  }
  const upstream = await deps.upstreamFor(deps.db, t);
  if (!upstream) {
    // An operator may restore the upstream; keep trying until the deadline.
    await recordPollFailure(deps.db, t.id, retryAt(now, t.pollFailures, deps.pollIntervalMs));
    return;
  }
  const interval = upstream.pollIntervalMs ?? deps.pollIntervalMs;
  const next = () => new Date((deps.now?.() ?? new Date()).getTime() + interval);

  if (!t.upstreamTaskId) {
    const created = await upstream.create(paramsToJob(t.params), deps.signal);
    // Shutting down: leave the task as it is; its lease runs out and another worker resumes it.
    if (deps.signal?.aborted) return;
    if (!created.ok) {
      if (created.retryable) return recordPollFailure(deps.db, t.id, retryAt(now, t.pollFailures, interval));
      await failTask(deps.db, t.id, created.error.message, fin);
      return;
    }
    await recordUpstreamAccepted(deps.db, t.id, {
      upstreamId: upstream.upstreamId,
      modelRowId: upstream.modelRowId,
      upstreamModel: upstream.upstreamModel,
      upstreamTaskId: created.value.id,
      nextPollAt: next(),
    });
    return;
  }

  const polled = await upstream.get(t.upstreamTaskId, deps.signal);
  if (deps.signal?.aborted) return;
  if (!polled.ok) {
    // The upstream no longer knows the task: it will never finish.
    if (polled.error.status === 404) {
      await failTask(deps.db, t.id, "The upstream no longer knows this task.", fin);
      return;
    }
    return recordPollFailure(deps.db, t.id, retryAt(now, t.pollFailures, interval));
  }
  const v = polled.value;
  if (v.status === "failed") {
    await failTask(deps.db, t.id, v.error ?? "The upstream failed to generate the video.", fin);
    return;
  }
  if (v.status !== "completed") {
    await recordProgress(deps.db, t.id, { status: v.status, progress: v.progress, nextPollAt: next() });
    return;
  }
  const stored = await storeContent(t, upstream, deps);
  if (deps.signal?.aborted) return;
  if (!stored.ok) {
    logger().warn({ taskId: t.id, upstream: upstream.upstreamId, why: stored.error }, "video download failed; will retry");
    return recordPollFailure(deps.db, t.id, retryAt(now, t.pollFailures, interval));
  }
  const price = (t.params.price as ModelPrice | undefined) ?? upstream.price;
  const job = paramsToJob(t.params);
  // Billed for what the upstream made: a 1080p request that came back 720p is a 720p charge.
  const cost = finalCost(price, t.holdMicroUsd, { seconds: v.seconds, resolution: v.resolution }, { resolution: job.resolution, audio: job.audio });
  await completeTask(deps.db, t.id, { mediaKeys: [stored.value], costMicroUsd: cost.costMicroUsd, seconds: v.seconds, pricedAs: cost.pricedAs }, {
    ...fin,
    now: deps.now?.() ?? new Date(),
  });
}

async function storeContent(
  t: TaskRow,
  upstream: TaskUpstream,
  deps: RunnerDeps,
): Promise<Result<string, string>> {
  // Downloading may take minutes: keep other workers off the task meanwhile.
  await deps.db.update(tasks).set({ lockedUntil: new Date(Date.now() + DOWNLOAD_LEASE_MS) }).where(eq(tasks.id, t.id));
  const content = await upstream.content(t.upstreamTaskId!, deps.signal);
  if (!content.ok) return { ok: false, error: content.error.message };
  const key = mediaKeyFor(t.id, 0);
  try {
    await deps.storage.put(key, content.value.body, "video/mp4");
  } catch (err) {
    content.value.body.destroy();
    return { ok: false, error: (err as Error).message };
  }
  return { ok: true, value: key };
}
