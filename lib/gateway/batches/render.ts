/** A batch as each dialect shows it: OpenAI's Batch object, Anthropic's MessageBatch, Gemini's results (gemini.ts renders its Operation). */
import type { DB } from "../../../db/client";
import type { batchLines, BatchLineStatus } from "../../../db/schema";
import { googleStatus } from "../errors";
import { unsealJson } from "./lines";
import { batchLinesInOrder, type BatchView } from "./store";

const secs = (d: Date | null | undefined) => (d ? Math.floor(d.getTime() / 1000) : null);

/** OpenAI's Batch object (plus `cost_usd`: what its lines were charged so far). */
export function renderOpenAIBatch({ row, counts }: BatchView): Record<string, unknown> {
  const ended = (s: string) => (row.status === s ? secs(row.endedAt) : null);
  return {
    id: row.id,
    object: "batch",
    endpoint: row.endpoint,
    errors: null,
    input_file_id: row.inputFileId,
    completion_window: "24h",
    status: row.status,
    output_file_id: row.outputFileId,
    error_file_id: row.errorFileId,
    created_at: secs(row.createdAt),
    in_progress_at: secs(row.createdAt),
    expires_at: secs(row.expiresAt),
    finalizing_at: secs(row.finalizingAt),
    completed_at: ended("completed"),
    failed_at: ended("failed"),
    expired_at: ended("expired"),
    cancelling_at: secs(row.cancellingAt),
    cancelled_at: ended("cancelled"),
    request_counts: { total: row.totalLines, completed: counts.succeeded, failed: counts.failed },
    metadata: row.metadata ?? null,
    cost_usd: counts.costMicroUsd / 1_000_000,
  };
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** Anthropic's MessageBatch (plus `cost_usd`). */
export function renderAnthropicBatch({ row, counts }: BatchView, baseUrl: string): Record<string, unknown> {
  const ended = row.status === "completed" || row.status === "cancelled" || row.status === "expired" || row.status === "failed";
  return {
    id: row.id,
    type: "message_batch",
    processing_status: ended ? "ended" : row.status === "cancelling" ? "canceling" : "in_progress",
    request_counts: {
      processing: ended ? 0 : row.totalLines - counts.succeeded - counts.failed - counts.cancelled - counts.expired,
      succeeded: counts.succeeded,
      errored: counts.failed,
      canceled: counts.cancelled,
      expired: counts.expired,
    },
    ended_at: ended ? iso(row.endedAt) : null,
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    archived_at: null,
    cancel_initiated_at: iso(row.cancellingAt),
    results_url: ended ? `${baseUrl}/v1/messages/batches/${row.id}/results` : null,
    cost_usd: counts.costMicroUsd / 1_000_000,
  };
}

/** The line's result as Anthropic's results JSONL shows it: `succeeded` (the Message), `errored`, `canceled` or `expired`. */
function anthropicResult(l: typeof batchLines.$inferSelect): Record<string, unknown> {
  if (l.status === "cancelled") return { type: "canceled" };
  if (l.status === "expired") return { type: "expired" };
  const r = l.result ? unsealJson<{ status_code?: number; body?: { error?: unknown } }>(l.result) : {};
  if (l.status === "succeeded") return { type: "succeeded", message: r.body };
  return { type: "errored", error: r.body && typeof r.body === "object" && "error" in r.body ? r.body : { type: "error", error: { type: "api_error", message: "The request failed." } } };
}

/** Anthropic's results JSONL, in line order; `pick` keeps some lines only (the console's errors download). */
export async function* anthropicResults(db: DB, batchId: string, pick: (status: BatchLineStatus) => boolean = () => true): AsyncGenerator<string> {
  for await (const l of batchLinesInOrder(db, batchId)) if (pick(l.status)) yield JSON.stringify({ custom_id: l.customId, result: anthropicResult(l) }) + "\n";
}

// ---- Gemini batch mode ----

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A line's result as Google's InlinedResponse / responses-file line shows it: the response, or a google.rpc.Status. */
export function geminiLineResult(l: typeof batchLines.$inferSelect): { response?: unknown; error?: unknown } {
  if (l.status === "cancelled") return { error: { code: 499, message: "This request was cancelled with its batch before it ran.", status: "CANCELLED" } };
  if (l.status === "expired") return { error: { code: 504, message: "This request could not be run before the batch's 24-hour window ended.", status: "DEADLINE_EXCEEDED" } };
  const r = l.result ? unsealJson<{ status_code?: number; body?: unknown }>(l.result) : {};
  if (l.status === "succeeded") return { response: r.body };
  const code = r.status_code ?? 500;
  const e = isObj(r.body) && isObj(r.body.error) ? r.body.error : {};
  return { error: { code, message: typeof e.message === "string" ? e.message : "The request failed.", status: typeof e.status === "string" ? e.status : googleStatus(code) } };
}

/** Google's JSONL responses file: `{"key", "response"}` or `{"key", "error"}` per line, in input order. */
export async function* geminiResponsesFile(db: DB, batchId: string, pick: (status: BatchLineStatus) => boolean = () => true): AsyncGenerator<Uint8Array> {
  for await (const l of batchLinesInOrder(db, batchId)) if (pick(l.status)) yield Buffer.from(JSON.stringify({ key: l.customId, ...geminiLineResult(l) }) + "\n");
}
