/**
 * The console's Batches page: the organisation's batches (only one's own for a member without
 * "usage.all", as on the API), their progress and money, downloads of their results and errors,
 * and cancel. Every read goes through the engine's viewer-scoped store (lib/gateway/batches), so
 * another organisation's (or member's) batch is a 404 here as on the API.
 */
import { Readable } from "node:stream";
import { inArray } from "drizzle-orm";
import type { DB } from "../../db/client";
import { holds } from "../../db/schema";
import type { SessionUser } from "../auth/session";
import { getFile, fileContent } from "../gateway/files/store";
import { anthropicResults, geminiResponsesFile } from "../gateway/batches/render";
import { finalizeBatch } from "../gateway/batches/runner";
import { cancelBatch, getBatch, listBatches, type BatchView } from "../gateway/batches/store";
import type { Viewer } from "../keys/visibility";
import type { BatchSummaryView } from "../views";
import { AppError } from "./errors";
import { memberScope } from "./scope";

const viewerOf = (user: SessionUser): Viewer => ({ accountId: user.accountId, memberScope: memberScope(user) ?? null });
const notFound = (id: string) => new AppError("not_found", `No batch found with id '${id.slice(0, 200)}'.`);

async function summaries(db: DB, views: BatchView[]): Promise<BatchSummaryView[]> {
  const holdIds = views.flatMap((v) => (v.row.holdId ? [v.row.holdId] : []));
  const held = new Map((holdIds.length ? await db.select({ id: holds.id, amount: holds.amountMicroUsd }).from(holds).where(inArray(holds.id, holdIds)) : []).map((h) => [h.id, Number(h.amount)]));
  return views.map(({ row, counts: c }) => {
    const ended = row.endedAt !== null;
    const others = c.failed + c.cancelled + c.expired;
    return {
      id: row.id,
      dialect: row.dialect,
      endpoint: row.endpoint,
      status: row.status,
      keyId: row.keyId,
      total: c.total,
      succeeded: c.succeeded,
      failed: c.failed,
      cancelled: c.cancelled,
      expired: c.expired,
      running: c.running,
      costMicroUsd: c.costMicroUsd,
      heldMicroUsd: (row.holdId && held.get(row.holdId)) || 0,
      inFlightMicroUsd: c.inFlightMicroUsd,
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      endedAt: row.endedAt?.toISOString() ?? null,
      // An OpenAI batch's files exist once written; Anthropic's and Gemini's results are made from its lines.
      hasResults: ended && c.succeeded > 0 && (row.dialect !== "openai" || row.outputFileId !== null),
      hasErrors: ended && others > 0 && (row.dialect !== "openai" || row.errorFileId !== null),
    };
  });
}

/** A page of the caller's batches, newest first; `after` is the last id of the page before. */
export async function listConsoleBatches(db: DB, user: SessionUser, opts: { after?: string } = {}): Promise<{ items: BatchSummaryView[]; nextCursor: string | null }> {
  const { views, hasMore } = await listBatches(db, viewerOf(user), { after: opts.after || undefined, limit: 25, order: "desc" });
  const items = await summaries(db, views);
  return { items, nextCursor: hasMore ? items[items.length - 1]!.id : null };
}

export async function consoleBatch(db: DB, user: SessionUser, id: string): Promise<BatchSummaryView> {
  const v = await getBatch(db, viewerOf(user), id);
  if (!v) throw notFound(id);
  return (await summaries(db, [v]))[0]!;
}

/**
 * Cancels as the API does: lines not started end uncharged, lines in flight finish and are billed;
 * with nothing in flight the batch ends at once and its unspent hold is back before the answer.
 * `returnedMicroUsd`: what came back now (0 while lines are still finishing).
 */
export async function cancelConsoleBatch(db: DB, user: SessionUser, id: string): Promise<{ batch: BatchSummaryView; returnedMicroUsd: number }> {
  const before = await consoleBatch(db, user, id);
  await cancelBatch(db, viewerOf(user), id);
  await finalizeBatch(db, id);
  const batch = await consoleBatch(db, user, id);
  return { batch, returnedMicroUsd: batch.endedAt && !before.endedAt ? before.heldMicroUsd : 0 };
}

/** The results (succeeded lines) or errors (the others) of an ended batch, as its own API shapes them. */
export async function downloadBatchFile(db: DB, user: SessionUser, id: string, which: string): Promise<Response> {
  if (which !== "results" && which !== "errors") throw new AppError("not_found", "Download 'results' or 'errors'.");
  const v = await getBatch(db, viewerOf(user), id);
  if (!v) throw notFound(id);
  const s = (await summaries(db, [v]))[0]!;
  if (!(which === "results" ? s.hasResults : s.hasErrors)) throw new AppError("not_found", `Batch ${id} has no ${which} to download${s.endedAt ? "" : " yet: it has not ended"}.`);
  const filename = `${id}_${which === "results" ? "output" : "error"}.jsonl`;
  const headers = { "content-type": "application/jsonl", "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" };
  if (v.row.dialect !== "openai") {
    const pick = which === "results" ? (st: string) => st === "succeeded" : (st: string) => st !== "succeeded";
    const lines = v.row.dialect === "anthropic" ? anthropicResults(db, id, pick) : geminiResponsesFile(db, id, pick);
    return new Response(Readable.toWeb(Readable.from(lines)) as ReadableStream, { headers });
  }
  const file = await getFile(db, viewerOf(user), (which === "results" ? v.row.outputFileId : v.row.errorFileId)!);
  const body = file && (await fileContent(file));
  if (!body) throw new AppError("not_found", `The ${which} file of batch ${id} has expired or was deleted.`);
  return new Response(Readable.toWeb(body) as ReadableStream, { headers: { ...headers, "content-length": String(file.bytes) } });
}
