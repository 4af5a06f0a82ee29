/**
 * The one request-log row builder: every metered call (text, embeddings, images, video) and
 * every refusal gets its row from here, and the settlement statements (text-settle-batch.ts)
 * take their column list from the same table definition, so a new column is added in the
 * schema, RequestLogFields and `requestLogRow` — nowhere else.
 */
import { getTableColumns } from "drizzle-orm";
import { performance } from "node:perf_hooks";
import type { DbOrTx } from "../../db/client";
import { requestLogs } from "../../db/schema";
import { MODEL_ID_MAX_CHARS } from "../validate/text";
import type { BillingRequest, RequestLogFields } from "./port";

export type RequestLogRow = typeof requestLogs.$inferInsert;

export function requestLogRow(req: BillingRequest, f: RequestLogFields, costMicroUsd = 0): RequestLogRow {
  return {
    requestId: req.requestId,
    accountId: req.accountId,
    keyId: req.keyId,
    userId: req.userId,
    source: req.source,
    method: req.method,
    route: req.route,
    // A refused over-long id is logged clipped: the row names it, it does not store a megabyte.
    model: f.model === null ? null : f.model.slice(0, MODEL_ID_MAX_CHARS),
    upstreamId: f.upstreamId ?? null,
    inboundProtocol: f.inboundProtocol ?? "openai",
    upstreamProtocol: f.upstreamProtocol ?? null,
    status: f.status,
    errorCode: f.errorCode ?? null,
    stream: f.stream ?? false,
    inputTokens: f.inputTokens ?? 0,
    outputTokens: f.outputTokens ?? 0,
    cacheReadTokens: f.cacheReadTokens ?? 0,
    cacheWrite5mTokens: f.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: f.cacheWrite1hTokens ?? 0,
    reasoningTokens: f.reasoningTokens ?? 0,
    imageOutputTokens: f.imageOutputTokens ?? 0,
    audioInputTokens: f.audioInputTokens ?? 0,
    audioOutputTokens: f.audioOutputTokens ?? 0,
    audioMs: f.audioMs ?? null,
    inputCharacters: f.inputCharacters ?? null,
    usageNote: f.usageNote ?? null,
    routing: f.routing ?? null,
    costMicroUsd,
    settlement: f.settlement,
    priceSnapshot: f.priceSnapshot ?? null,
    latencyMs: Math.max(f.latencyMs ?? 0, Math.round(performance.now() - req.startedAt)),
    ttftMs: f.ttftMs ?? null,
    replayedItems: f.replayedItems ?? null,
    droppedParams: f.droppedParams ?? null,
    servedModel: f.servedModel ?? null,
    routeTrace: f.routeTrace ?? null,
    guardrails: f.guardrails ?? null,
    savedMicroUsd: f.savedMicroUsd ?? null,
  };
}

/** A row with nothing to settle (a refusal, a replay): written on its own; a second write of the request is ignored. */
export async function insertRequestLog(db: DbOrTx, row: RequestLogRow): Promise<void> {
  await db.insert(requestLogs).values(row).onConflictDoNothing();
}

/**
 * The columns a settlement statement writes from the row (all but the serial id, the creation
 * time and the cost, which the statement sets to what it charged): property, SQL name, SQL type.
 */
export const LOG_COLUMNS: ReadonlyArray<{ key: keyof RequestLogRow; name: string; type: string }> = Object.entries(getTableColumns(requestLogs))
  .filter(([key]) => key !== "id" && key !== "createdAt" && key !== "costMicroUsd")
  .map(([key, col]) => ({ key: key as keyof RequestLogRow, name: col.name, type: col.getSQLType() }));
