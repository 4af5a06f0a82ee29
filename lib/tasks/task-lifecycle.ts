/**
 * Task state changes and the money that moves with them, each in one transaction.
 *
 *   queued → in_progress → completed | failed, and queued → failed; final states never change;
 *   progress never goes down.
 *
 * Money: the price is taken at submission (ledger `charge`, key `task:<id>:charge`) with the
 * same conditional UPDATE as every debit, so concurrent submissions can never overdraw. A
 * failure returns it (ledger `refund`, key `task:<id>:refund`); a duration-priced task that ran
 * shorter than held returns the difference (ledger `release`, key `task:<id>:release`).
 * Exactly once is enforced twice by the database: only the transaction whose compare-and-set
 * moves the task out of queued/in_progress does the money, and the ledger's unique
 * idempotency key refuses a second row whatever code path tries (docs/decisions/video-task-billing.md).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, ledgerEntries, requestLogs, tasks, webhookDeliveries, type ModelPrice, type TaskStatus } from "../../db/schema";
import { balanceView } from "../billing/balance-view";
import { recordLedgerRow } from "../billing/ledger";
import { moveMoney, Refused, refusedOr } from "../billing/lock-order";
import type { Refusal } from "../billing/port";
import { encryptSecret } from "../crypto";
import { newId } from "../ids";
import { renderTask, type TaskRow } from "./task-render";
import type { VideoJob } from "./task-upstream";

export const RETENTION_DAYS = 14;
const RUNNING: TaskStatus[] = ["queued", "in_progress"];

export interface CreateTaskInput {
  taskId?: string;
  accountId: string;
  keyId: string | null;
  userId: string | null;
  source: "api" | "playground";
  model: string;
  modelRowId: string;
  upstreamId: string;
  upstreamModel: string;
  family: TaskRow["family"];
  job: VideoJob;
  webhookUrl: string | null;
  webhookSecret: string | null;
  holdMicroUsd: number;
  /** The price used, kept on the task so settlement survives a price edit. */
  price: ModelPrice;
  requestId: string;
  timeoutS: number;
  /** The submitting request keeps the task to itself this long while it calls the upstream. */
  leaseMs: number;
  now?: Date;
}

export type CreateTaskResult =
  | { ok: true; task: TaskRow; balanceAfterMicroUsd: number | null }
  | ({ ok: false } & Refusal);

/** Charges the price and inserts the task, atomically: both happen or neither. */
export async function createVideoTask(db: DB, input: CreateTaskInput): Promise<CreateTaskResult> {
  const id = input.taskId ?? newId("task");
  const now = input.now ?? new Date();
  const amount = input.holdMicroUsd;
  return refusedOr(() =>
    db.transaction(async (tx) => {
      let balanceAfter: number | null = null;
      if (amount > 0) {
        // Account, then key (lock-order.ts): the same order as every other money path.
        const moved = await moveMoney(tx, { accountId: input.accountId, keyId: input.keyId, balance: -amount, spent: amount, require: amount });
        if (!moved.ok) throw new Refused(moved);
        balanceView().forget(input.accountId);
        const entry = await recordLedgerRow(
          tx,
          {
            accountId: input.accountId,
            deltaMicroUsd: -amount,
            kind: "charge",
            idempotencyKey: `task:${id}:charge`,
            taskId: id,
            keyId: input.keyId ?? undefined,
            requestId: input.requestId,
            note: `video ${input.model}`,
          },
          moved.balanceAfterMicroUsd,
        );
        if (entry === null) throw new Error(`task ${id} was charged already`);
        balanceAfter = moved.balanceAfterMicroUsd;
      } else {
        // A free model still needs a usable account balance (never below zero).
        const [acct] = await tx.select({ b: accounts.balanceMicroUsd }).from(accounts).where(eq(accounts.id, input.accountId));
        if (!acct || acct.b < 0) throw new Refused({ reason: "insufficient_balance" });
        balanceAfter = acct.b;
      }
      const [task] = await tx
        .insert(tasks)
        .values({
          id,
          accountId: input.accountId,
          keyId: input.keyId,
          userId: input.userId,
          source: input.source,
          model: input.model,
          modelRowId: input.modelRowId,
          upstreamId: input.upstreamId,
          upstreamModel: input.upstreamModel,
          family: input.family,
          status: "queued",
          progress: 0,
          seconds: input.job.seconds,
          size: input.job.size,
          params: { ...jobToParams(input.job), price: input.price },
          webhookUrl: input.webhookUrl,
          webhookSecretEncrypted: input.webhookSecret ? encryptSecret(input.webhookSecret) : null,
          holdMicroUsd: amount,
          costMicroUsd: amount,
          createdAt: now,
          deadlineAt: new Date(now.getTime() + input.timeoutS * 1000),
          nextPollAt: now,
          lockedUntil: new Date(now.getTime() + input.leaseMs),
        })
        .returning();
      return { ok: true as const, task: task!, balanceAfterMicroUsd: balanceAfter };
    }),
  );
}

export function jobToParams(job: VideoJob): Record<string, unknown> {
  return { ...job };
}

export function paramsToJob(params: Record<string, unknown>): VideoJob {
  return {
    prompt: String(params.prompt ?? ""),
    seconds: (params.seconds as string | null) ?? null,
    size: (params.size as string | null) ?? null,
    aspectRatio: (params.aspectRatio as string | null) ?? null,
    images: Array.isArray(params.images) ? (params.images as VideoJob["images"]) : [],
    videoUrl: (params.videoUrl as string | null) ?? null,
    resolution: (params.resolution as string | null | undefined) ?? null,
    negativePrompt: (params.negativePrompt as string | null | undefined) ?? null,
    audio: (params.audio as boolean | null | undefined) ?? null,
  };
}

/**
 * The upstream accepted the task: remember its id; uploaded image bytes are no longer needed.
 * Status and progress stay as they are (the submission answers `queued`, progress 0); the
 * worker's polls move them.
 */
export async function recordUpstreamAccepted(
  db: DbOrTx,
  taskId: string,
  input: { upstreamId: string; modelRowId: string; upstreamModel: string; upstreamTaskId: string; nextPollAt: Date },
): Promise<TaskRow | null> {
  const [t] = await db
    .update(tasks)
    .set({
      upstreamId: input.upstreamId,
      modelRowId: input.modelRowId,
      upstreamModel: input.upstreamModel,
      upstreamTaskId: input.upstreamTaskId,
      params: sql`${tasks.params} - 'images'`,
      pollFailures: 0,
      nextPollAt: input.nextPollAt,
      lockedUntil: null,
    })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, RUNNING)))
    .returning();
  return t ?? null;
}

/** A poll result that is not final: status may only move forward, progress only up. */
export async function recordProgress(db: DbOrTx, taskId: string, input: { status: TaskStatus; progress: number; nextPollAt: Date }): Promise<void> {
  const toInProgress = input.status === "in_progress";
  await db
    .update(tasks)
    .set({
      status: toInProgress ? "in_progress" : sql`${tasks.status}`,
      startedAt: toInProgress ? sql`coalesce(${tasks.startedAt}, now())` : sql`${tasks.startedAt}`,
      progress: sql`least(99, greatest(${tasks.progress}, ${Math.round(input.progress)}))`,
      pollFailures: 0,
      nextPollAt: input.nextPollAt,
      lockedUntil: null,
    })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, RUNNING)));
}

/** A transient problem (upstream unreachable): try again later, keep the task as it is. */
export async function recordPollFailure(db: DbOrTx, taskId: string, nextPollAt: Date): Promise<void> {
  await db
    .update(tasks)
    .set({ pollFailures: sql`${tasks.pollFailures} + 1`, nextPollAt, lockedUntil: null })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, RUNNING)));
}

async function enqueueWebhook(tx: DbOrTx, t: TaskRow, now: Date, publicBaseUrl?: string): Promise<void> {
  if (!t.webhookUrl) return;
  await tx.insert(webhookDeliveries).values({
    id: newId("delivery"),
    taskId: t.id,
    accountId: t.accountId,
    url: t.webhookUrl,
    body: JSON.stringify(renderTask(t, { publicBaseUrl })),
    eventStatus: t.status,
    state: "pending",
    nextAttemptAt: now,
  });
}

/**
 * A batch's final state on the same durable, signed queue as a task's (lib/gateway/batches):
 * the delivery carries its own secret. `id` is derived from the batch, so announcing it twice
 * (two runners finishing it) queues one delivery.
 */
export async function enqueueBatchWebhook(tx: DbOrTx, e: { id: string; batchId: string; accountId: string; url: string; secretEncrypted: string | null; body: string; status: string; now: Date }): Promise<void> {
  await tx
    .insert(webhookDeliveries)
    .values({ id: e.id, kind: "batch", taskId: e.batchId, accountId: e.accountId, url: e.url, body: e.body, eventStatus: e.status, secretEncrypted: e.secretEncrypted, state: "pending", nextAttemptAt: e.now })
    .onConflictDoNothing();
}

export interface FinalizeOptions {
  now?: Date;
  publicBaseUrl?: string;
  /**
   * false when the submitting request itself reports the failure (the upstream refused the
   * task at creation): the client got an error answer and never saw the task id.
   */
  notify?: boolean;
}

/**
 * Completes a task. Returns the row when this call made the change, null when the task was
 * already final (another worker, a duplicate report): then nothing else happens.
 */
export async function completeTask(
  db: DB,
  taskId: string,
  input: {
    mediaKeys: string[];
    costMicroUsd: number;
    /** The real duration, when the submission left it open (extend). */
    seconds?: string | null;
    /** The price key charged (`720p:audio`) when the price is keyed by resolution: kept in params, said in the release's note. */
    pricedAs?: string | null;
  },
  opts: FinalizeOptions = {},
): Promise<TaskRow | null> {
  const now = opts.now ?? new Date();
  return db.transaction(async (tx) => {
    const [t] = await tx
      .update(tasks)
      .set({
        status: "completed",
        progress: 100,
        completedAt: now,
        expiresAt: new Date(now.getTime() + RETENTION_DAYS * 86_400_000),
        mediaKeys: input.mediaKeys,
        seconds: sql`coalesce(${tasks.seconds}, ${input.seconds ?? null})`,
        ...(input.pricedAs ? { params: sql`${tasks.params} || ${JSON.stringify({ pricedAs: input.pricedAs })}::jsonb` } : {}),
        costMicroUsd: sql`least(${tasks.holdMicroUsd}, ${Math.max(0, Math.ceil(input.costMicroUsd))})`,
        startedAt: sql`coalesce(${tasks.startedAt}, ${now.toISOString()}::timestamptz)`,
        lockedUntil: null,
        nextPollAt: null,
      })
      .where(and(eq(tasks.id, taskId), inArray(tasks.status, RUNNING)))
      .returning();
    if (!t) return null;
    const unused = t.holdMicroUsd - t.costMicroUsd;
    if (unused > 0) await giveBack(tx, t, unused, "release", input.pricedAs ?? null);
    await enqueueWebhook(tx, t, now, opts.publicBaseUrl);
    return t;
  });
}

/** Fails a task and refunds it, exactly once (see the file comment). */
export async function failTask(db: DB, taskId: string, reason: string, opts: FinalizeOptions = {}): Promise<TaskRow | null> {
  const now = opts.now ?? new Date();
  return db.transaction(async (tx) => {
    const [t] = await tx
      .update(tasks)
      .set({
        status: "failed",
        completedAt: now,
        errorMessage: reason.slice(0, 1000),
        costMicroUsd: 0,
        lockedUntil: null,
        nextPollAt: null,
        params: sql`${tasks.params} - 'images'`,
      })
      .where(and(eq(tasks.id, taskId), inArray(tasks.status, RUNNING)))
      .returning();
    if (!t) return null;
    if (t.holdMicroUsd > 0) await giveBack(tx, t, t.holdMicroUsd, "refund");
    if (opts.notify !== false) await enqueueWebhook(tx, t, now, opts.publicBaseUrl);
    return t;
  });
}

async function giveBack(tx: DbOrTx, t: TaskRow, amount: number, kind: "refund" | "release", pricedAs: string | null = null): Promise<void> {
  // Account, then key (lock-order.ts). Runs once: only the task's compare-and-set gets here.
  const moved = await moveMoney(tx, { accountId: t.accountId, keyId: t.keyId, balance: amount, spent: -amount });
  if (!moved.ok) return; // the account is gone
  balanceView().forget(t.accountId);
  const entry = await recordLedgerRow(
    tx,
    {
      accountId: t.accountId,
      deltaMicroUsd: amount,
      kind,
      idempotencyKey: `task:${t.id}:${kind}`,
      taskId: t.id,
      keyId: t.keyId ?? undefined,
      note: kind === "refund" ? "video task failed" : `video task made less than held${pricedAs ? ` (billed as ${pricedAs})` : ""}`,
    },
    moved.balanceAfterMicroUsd,
  );
  if (entry === null) throw new Error(`task ${t.id}: ${kind} recorded twice`);
  // The submitting request's log row carries spend net of what came back, so every spend
  // figure (Usage, Overview, CSV, per key) agrees with the ledger (docs/decisions/0007).
  await tx
    .update(requestLogs)
    .set({
      costMicroUsd: sql`greatest(0, ${requestLogs.costMicroUsd} - ${amount})`,
      ...(kind === "refund" ? { settlement: "refunded" } : {}),
    })
    .where(
      eq(
        requestLogs.requestId,
        sql`(select ${ledgerEntries.requestId} from ${ledgerEntries} where ${ledgerEntries.idempotencyKey} = ${`task:${t.id}:charge`})`,
      ),
    );
}
