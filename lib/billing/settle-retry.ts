/**
 * A settlement that fails must neither lose the charge (the upstream did the work) nor keep the
 * hold (the client's money stays frozen). Two kinds of failure:
 * - transient (deadlock, serialization failure, a lock wait past lock_timeout, lost connection,
 *   the server restarting): the same statement is retried with backoff;
 * - the row itself is refused (a value the log table cannot store): the settlement is retried
 *   once with a repaired log row — the money part unchanged, suspicious fields dropped, and the
 *   row's `settlement` ends in `_repaired` with a `usage_note` saying why.
 * Only when the database refuses both for good is the request left uncharged; its hold then goes
 * back (a lease is returned whole when idle, a hold row by the sweeper).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { requestLogs } from "../../db/schema";

type LogRow = typeof requestLogs.$inferInsert;

/** The log row's note when a cost was not a finite number and the whole hold was charged instead. */
export const UNKNOWN_COST_NOTE = "the cost could not be computed: the whole hold was charged";
export const withNote = (note: string | null | undefined, add: string) => (note ? `${note}; ${add}` : add);

/** SQLSTATE classes and codes worth retrying unchanged. */
export function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return err instanceof Error && /ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|Connection terminated/i.test(err.message);
  return code === "40001" || code === "40P01" || code === "55P03" || code.startsWith("08") || code.startsWith("53") || code === "57P01" || code === "57P02" || code === "57P03" || code.startsWith("E");
}

/** Delays between attempts of a transient failure (about 15 s in all). */
const BACKOFF_MS = [20, 100, 500, 2_000, 5_000, 8_000];

/** Runs `fn`, again after each transient failure while the backoff lasts; other errors are thrown at once. */
export async function retryTransient<T>(fn: () => Promise<T>, backoff: readonly number[] = BACKOFF_MS): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= backoff.length || !isTransient(err)) throw err;
      await sleep(backoff[i]!);
    }
  }
}

// Text PostgreSQL cannot store: NUL, and lone surrogates (not UTF-8).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const text = (v: string | null | undefined) => (typeof v === "string" ? v.replace(UNSTORABLE, "\uFFFD") : v);
const count = (v: number | null | undefined) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : 0);
const int32 = (v: number | null | undefined) => (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < 2 ** 31 ? v : null);

/**
 * The same request-log row with only what any table can store: text made storable, counts
 * that are not whole non-negative numbers set to 0, the price snapshot kept only if it is
 * plain JSON. It says it was repaired, and why.
 */
export function repairLogRow(row: LogRow, err: unknown): LogRow {
  const code = (err as { code?: unknown } | null)?.code;
  let price: LogRow["priceSnapshot"] = null;
  try {
    price = row.priceSnapshot ? JSON.parse(JSON.stringify(row.priceSnapshot)) : null;
  } catch {
    price = null;
  }
  const note = `settlement retried with this row repaired (first attempt refused${typeof code === "string" ? `: ${code}` : ""})`;
  return {
    ...row,
    model: text(row.model),
    errorCode: text(row.errorCode),
    usageNote: withNote(text(row.usageNote), note),
    routing: text(row.routing),
    inputTokens: count(row.inputTokens),
    outputTokens: count(row.outputTokens),
    cacheReadTokens: count(row.cacheReadTokens),
    cacheWrite5mTokens: count(row.cacheWrite5mTokens),
    cacheWrite1hTokens: count(row.cacheWrite1hTokens),
    reasoningTokens: count(row.reasoningTokens),
    imageOutputTokens: count(row.imageOutputTokens),
    latencyMs: int32(row.latencyMs) ?? 0,
    ttftMs: int32(row.ttftMs),
    priceSnapshot: price,
    settlement: `${row.settlement ?? "completed"}_repaired`,
  };
}

/**
 * Runs a settlement that writes `row`: retried unchanged after transient failures, then once
 * with the row repaired if the database refused it. Throws only when both fail.
 */
export async function settleWithRepair<T>(row: LogRow, run: (row: LogRow) => Promise<T>): Promise<T> {
  try {
    return await retryTransient(() => run(row));
  } catch (err) {
    if (isTransient(err)) throw err;
    return retryTransient(() => run(repairLogRow(row, err)));
  }
}
