/**
 * The gateway-run batch engine (decision 0054). Durable state only: a line is claimed in the
 * database (FOR UPDATE SKIP LOCKED, a lease that ends at `due_at`), run through the one text
 * call every text entry makes (routes/text-call.ts) with a billing that draws on the batch's one
 * hold, and ended in ONE transaction with its charge, its log row and its result — a compare-
 * and-set on the claim, so a line is charged once however many runners or restarts touched it.
 * A runner that dies leaves its lines `running` until their lease ends; the next pass takes them
 * again (the upstream may then be called twice; the client is charged once). A batch whose lines
 * are all ended is finalized: its output and error files written, the rest of its hold returned,
 * its webhook queued, also exactly once.
 *
 * Driven by lib/runtime/jobs.ts (a long-running server) and the cron pass (serverless), at most
 * BATCH_CONCURRENCY lines at once per instance, so interactive traffic keeps the rest.
 */
import { createHash } from "node:crypto";
import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { batches, batchLines, type BatchStatus } from "../../../db/schema";
import { returnHold } from "../../billing/holds";
import { env } from "../../env";
import { randomBase62 } from "../../ids";
import { logger } from "../../logger";
import { enqueueBatchWebhook } from "../../tasks/task-lifecycle";
import { writeFile } from "../files/store";
import { unsealJson } from "./lines";
import { geminiResponsesFile, renderOpenAIBatch } from "./render";
import { runNativePass } from "./native";
import { callLine, claimedOf, endLines, type Claimed } from "./run-line";
import { batchLinesInOrder, countsOf, type BatchRow } from "./store";
import { wakeWorkers } from "../../tasks/wake";

/** How long one runner may take to finalize a batch before another may. */
const FINALIZE_LEASE_MS = 120_000;

/** Claims up to `n` due lines of open batches (a pending line, or a running one whose runner's lease ended). */
export async function claimLines(db: DB, n: number, leaseMs = env().BATCH_LINE_LEASE_S * 1000): Promise<Claimed[]> {
  // Lines bound for a vendor's batch API (native.ts) are never the runner's.
  const claim = randomBase62(16);
  const res = (await db.execute(sql`
    with c as (
      select l.batch_id, l.idx from batch_lines l join batches b on b.id = l.batch_id
       where l.status in ('pending', 'running') and l.due_at <= now() and l.native_route is null and l.vendor_batch_id is null
         and b.status = 'in_progress' and b.expires_at > now()
       order by l.due_at, l.batch_id, l.idx
       limit ${n}
       for update of l skip locked)
    update batch_lines l set status = 'running', claim = ${claim}, due_at = now() + (${leaseMs}::int * interval '1 millisecond'), attempts = l.attempts + 1
      from c, batches b
     where l.batch_id = c.batch_id and l.idx = c.idx and b.id = l.batch_id
    returning l.batch_id, l.idx, l.custom_id, l.url, l.body, l.body_bytes, l.share_micro_usd, l.request_id, b.account_id, b.key_id, b.hold_id, b.principal`)) as unknown as {
    rows: Record<string, unknown>[];
  };
  return res.rows.map((r) => claimedOf(r, claim));
}

/** What one pass did; `vendor`: vendor batches submitted or polled. All zero: nothing to do. */
export interface BatchPass {
  lines: number;
  finalized: number;
  vendor: number;
}

/**
 * One pass: waves of up to `concurrency` lines run at once, each wave ended together, until
 * nothing is due or `until`; then every batch whose work is over is finalized.
 */
export async function runBatchPass(db: DB, opts: { until: number; concurrency?: number }): Promise<BatchPass> {
  let lines = 0;
  const n = Math.max(1, opts.concurrency ?? env().BATCH_CONCURRENCY);
  // Lines served by a vendor's own batch API: submitted, polled and ended there (decision 0070).
  const native = await runNativePass(db, { until: opts.until }).catch((err) => void logger().error({ err }, "vendor batches not advanced"));
  while (Date.now() < opts.until) {
    const claimed = await claimLines(db, n);
    if (!claimed.length) break;
    lines += await endLines(db, await Promise.all(claimed.map((l) => callLine(db, l))));
  }
  const finalized = await finalizeDue(db);
  return { lines, finalized, vendor: native ? native.submitted + native.polled : 0 };
}

/** Batches whose work is over (or past their window) are finalized. */
export async function finalizeDue(db: DB): Promise<number> {
  const now = new Date();
  const open = await db
    .select({ id: batches.id })
    .from(batches)
    .where(and(inArray(batches.status, ["in_progress", "cancelling", "finalizing"] satisfies BatchStatus[]), or(isNull(batches.lockedUntil), lt(batches.lockedUntil, now))))
    .limit(50);
  let n = 0;
  for (const b of open) if (await finalizeBatch(db, b.id).catch((err) => logger().error({ err, batchId: b.id }, "batch not finalized"))) n++;
  if (n > 0) wakeWorkers(); // a finished batch may have queued its webhook
  return n;
}

/** The status a batch ends in: cancelled once cancel was asked, expired past its window, else completed. */
function finalStatus(b: BatchRow, now: Date): BatchStatus {
  if (b.cancellingAt) return "cancelled";
  return b.expiresAt <= now ? "expired" : "completed";
}

/** Finalizes one batch when its lines are all ended; true when this call ended it. */
export async function finalizeBatch(db: DB, id: string): Promise<boolean> {
  const now = new Date();
  const [b] = await db.select().from(batches).where(eq(batches.id, id));
  if (!b || !["in_progress", "cancelling", "finalizing"].includes(b.status)) return false;
  // Cancelled, or past the window: lines not started, and running ones whose runner died (no
  // runner takes them again now), end uncharged.
  const closing = b.cancellingAt ? "cancelled" : b.expiresAt <= now ? "expired" : null;
  if (closing) {
    await db
      .update(batchLines)
      .set({ status: closing, claim: null, endedAt: now })
      .where(and(eq(batchLines.batchId, id), or(eq(batchLines.status, "pending"), and(eq(batchLines.status, "running"), lt(batchLines.dueAt, now)))));
  }
  const [open] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(batchLines)
    .where(and(eq(batchLines.batchId, id), inArray(batchLines.status, ["pending", "running"])));
  if (open!.n > 0) return false;
  const [claimed] = await db
    .update(batches)
    .set({ status: "finalizing", finalizingAt: sql`coalesce(${batches.finalizingAt}, now())`, lockedUntil: new Date(now.getTime() + FINALIZE_LEASE_MS) })
    .where(and(eq(batches.id, id), inArray(batches.status, ["in_progress", "cancelling", "finalizing"]), or(isNull(batches.lockedUntil), lt(batches.lockedUntil, now))))
    .returning();
  if (!claimed) return false;
  const status = finalStatus(claimed, now);
  const files = claimed.dialect === "openai" ? await writeResultFiles(db, claimed) : claimed.dialect === "gemini" && claimed.inputFileId ? await writeGeminiResponses(db, claimed) : { output: null, error: null };
  return db.transaction(async (tx) => {
    const [done] = await tx
      .update(batches)
      .set({ status, endedAt: now, lockedUntil: null, outputFileId: files.output, errorFileId: files.error })
      .where(and(eq(batches.id, id), eq(batches.status, "finalizing")))
      .returning();
    if (!done) return false;
    // What is left of the one hold: cancelled and expired lines' shares, and what lines did not use.
    if (done.holdId) await returnHold(tx, done.holdId, done.accountId, done.keyId);
    if (done.webhookUrl) {
      const counts = (await countsOf(tx, [id])).get(id)!;
      await enqueueBatchWebhook(tx, { id: `whd_${id}`, batchId: id, accountId: done.accountId, url: done.webhookUrl, secretEncrypted: done.webhookSecretEncrypted, body: JSON.stringify(renderOpenAIBatch({ row: done, counts })), status, now });
    }
    return true;
  });
}

const derivedFileId = (batchId: string, kind: string) => `file-${createHash("sha256").update(`${batchId}:${kind}`).digest("base64url").replace(/[-_]/g, "").slice(0, 24)}`;

/** One JSONL line of OpenAI's output or error file. */
function openAILine(l: typeof batchLines.$inferSelect): string {
  const r = l.result ? unsealJson<{ status_code?: number; body?: unknown }>(l.result) : {};
  const id = `batch_req_${createHash("sha256").update(`${l.batchId}:${l.idx}`).digest("hex").slice(0, 32)}`;
  if (l.status === "cancelled" || l.status === "expired") {
    const error = l.status === "cancelled" ? { code: "batch_cancelled", message: "This request was cancelled with its batch before it ran." } : { code: "batch_expired", message: "This request could not be executed before the completion window expired." };
    return JSON.stringify({ id, custom_id: l.customId, response: null, error });
  }
  return JSON.stringify({ id, custom_id: l.customId, response: { status_code: r.status_code, request_id: l.requestId, body: r.body }, error: null });
}

async function* jsonl(db: DB, batchId: string, pick: (l: typeof batchLines.$inferSelect) => boolean): AsyncGenerator<Uint8Array> {
  for await (const l of batchLinesInOrder(db, batchId)) if (pick(l)) yield Buffer.from(openAILine(l) + "\n");
}

/** Writes the output file (succeeded lines) and the error file (the rest), each only when it has lines. */
async function writeResultFiles(db: DB, b: BatchRow): Promise<{ output: string | null; error: string | null }> {
  const counts = (await countsOf(db, [b.id])).get(b.id)!;
  const owner = { accountId: b.accountId, keyId: b.keyId, userId: b.userId };
  const expiresAt = new Date(Date.now() + 30 * 86_400_000);
  const ok = (l: typeof batchLines.$inferSelect) => l.status === "succeeded";
  const output = counts.succeeded ? (await writeFile(db, owner, { id: derivedFileId(b.id, "output"), filename: `${b.id}_output.jsonl`, purpose: "batch_output", body: jsonl(db, b.id, ok), expiresAt })).id : null;
  const errored = counts.failed + counts.cancelled + counts.expired;
  const error = errored ? (await writeFile(db, owner, { id: derivedFileId(b.id, "error"), filename: `${b.id}_error.jsonl`, purpose: "batch_output", body: jsonl(db, b.id, (l) => !ok(l)), expiresAt })).id : null;
  return { output, error };
}

/** Gemini batch mode from a file: one responses file of every line, as Google writes it. */
async function writeGeminiResponses(db: DB, b: BatchRow): Promise<{ output: string | null; error: string | null }> {
  const owner = { accountId: b.accountId, keyId: b.keyId, userId: b.userId };
  const f = await writeFile(db, owner, { id: derivedFileId(b.id, "output"), filename: `${b.id}_responses.jsonl`, purpose: "batch_output", body: geminiResponsesFile(db, b.id), expiresAt: new Date(Date.now() + 30 * 86_400_000) });
  return { output: f.id, error: null };
}
