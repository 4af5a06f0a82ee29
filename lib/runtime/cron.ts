/**
 * GET /api/cron/tick: one bounded pass of every background job, for deployments where nothing
 * runs between requests (Vercel, or any scheduler: a Kubernetes CronJob's curl). Vercel's Cron
 * calls it with `Authorization: Bearer $CRON_SECRET`; anything else is refused. The pass:
 * expired holds returned, video tasks polled and webhooks delivered (and retried) until nothing
 * is due or the time budget is spent, queued background responses run, retention. It answers
 * what it did, as JSON. Passes may overlap: every job is claimed in the database (decision 0043).
 */
import { getDb } from "../../db/client";
import { sweepExpiredHolds } from "../billing/holds";
import { bearerToken, safeEqual } from "../crypto";
import { env } from "../env";
import { sweepBackgroundResponses } from "../gateway/stored-responses/background";
import { deleteExpiredResponses } from "../gateway/stored-responses/store";
import { loadTaskUpstream } from "../gateway/videos/task-upstream";
import { runBatchPass } from "../gateway/batches/runner";
import { deleteExpiredFiles } from "../gateway/files/store";
import { logger } from "../logger";
import { runWorkerPass } from "../tasks/worker";
import { deleteExpiredRequestLogs } from "./request-log-retention";
import { deleteExpiredCacheEntries } from "../gateway/response-cache/store";
import { deleteExpiredContentLogs } from "../content-logs/store";

export const CRON_PATH = "/api/cron/tick";

export interface CronAnswer {
  status: number;
  body: Record<string, unknown>;
}

const refusal = (status: number, code: string, message: string): CronAnswer => ({ status, body: { error: { type: status === 404 ? "not_found" : "authentication_error", code, message } } });

/** Why the caller may not run the pass (checked before anything else is done), or null. */
export function refuseCronCaller(authorization: string | null | undefined): CronAnswer | null {
  const secret = env().CRON_SECRET;
  if (!secret) return refusal(404, "cron_disabled", "The cron route is off: set CRON_SECRET to use it.");
  if (!safeEqual(bearerToken(authorization), secret)) return refusal(401, "invalid_cron_secret", "Send Authorization: Bearer $CRON_SECRET.");
  return null;
}

/** The pass as the mounts answer it (server.ts and app/api/cron/tick), after refuseCronCaller. */
export async function cronTick(): Promise<CronAnswer> {
  const body = await runCronPass();
  return { status: body.ok ? 200 : 500, body };
}

/**
 * The pass itself. New work starts only within CRON_TIME_BUDGET_S; work started runs to its end
 * (a poll or a delivery has its own timeout), so the function's duration limit must exceed the
 * budget by the longest of those. A job that fails is named in `failed` and the others still run.
 */
export async function runCronPass(budgetMs = env().CRON_TIME_BUDGET_S * 1000): Promise<Record<string, unknown>> {
  const started = Date.now();
  const until = started + budgetMs;
  const db = await getDb();
  const did: Record<string, number> = {};
  const failed: string[] = [];
  const step = async (name: string, fn: () => Promise<Record<string, number>>) => {
    try {
      Object.assign(did, await fn());
    } catch (err) {
      logger().error({ err, job: name }, "cron job failed");
      failed.push(name);
    }
  };
  // Money first, then what clients wait for, then housekeeping.
  await step("holds", async () => ({ holds_returned: await sweepExpiredHolds(db) }));
  await step("tasks", async () => {
    const w = await runWorkerPass({ db, upstreamFor: loadTaskUpstream, until });
    return { video_task_turns: w.tasks, webhook_deliveries: w.deliveries, media_retired: w.retention };
  });
  await step("background_responses", async () => ({ background_responses: await sweepBackgroundResponses(db, Date.now(), until) }));
  await step("batches", async () => {
    const b = await runBatchPass(db, { until });
    return { batch_lines: b.lines, batches_finalized: b.finalized };
  });
  await step("retention", async () => ({
    files_deleted: await deleteExpiredFiles(db),
    stored_responses_deleted: await deleteExpiredResponses(db),
    request_logs_deleted: await deleteExpiredRequestLogs(db),
    response_cache_deleted: await deleteExpiredCacheEntries(db),
    content_logs_deleted: await deleteExpiredContentLogs(db),
  }));
  const out = { ok: failed.length === 0, ms: Date.now() - started, budget_ms: budgetMs, ...did, ...(failed.length ? { failed } : {}) };
  logger().info(out, "cron pass done");
  return out;
}
