/**
 * Gemini batch mode (`models.batchGenerateContent`, `batches.get/list/cancel/delete`) on the one
 * batch engine (runner.ts): each request is a generateContent line of the batch's model, billed as
 * every batch line is (decision 0053). Requests come inline (`inputConfig.requests`) or as a
 * gateway file of `{"key", "request"}` lines (`inputConfig.fileName: "files/<file id>"`); results
 * come back as the input came: inline in the operation, or as a responses file.
 *
 * Served under `v1beta` and `v1` (@google/genai 3.x defaults to `v1`). `GET /v1/batches[/{id}]`
 * is also OpenAI's: routes.ts hands a Google caller (x-goog-api-key or `?key=`) to this file.
 */
import { getDb, type DB } from "../../../db/client";
import { errorResponse, errors, type ApiError } from "../errors";
import type { Err, Result } from "../../result";
import { json, type GatewayResponse } from "../http";
import { fileNotFound } from "../files/routes";
import { getFile, readWholeFile } from "../files/store";
import type { RouteContext, RouteDef } from "../types";
import { createBatch, MAX_LINES, type NewLine } from "./create";
import { geminiLineUrl } from "./lines";
import { geminiLineResult } from "./render";
import { finalizeBatch } from "./runner";
import { batchLinesInOrder, cancelBatch, deleteBatch, getBatch, listBatches, type BatchView } from "./store";

const GOOGLE = { transports: { queryKey: true, googApiKey: true }, errorStyle: "gemini" as const };
/** Inline requests: Google's own limit on a batchGenerateContent body is 20 MB. */
const INLINE_BODY_LIMIT = 20 * 1024 * 1024;
/** Google's limit on a batch input file. */
const MAX_INPUT_BYTES = 2 * 1024 * 1024 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const gerr = (e: ApiError) => errorResponse(e, "gemini");
const notFound = (id: string): ApiError => ({ status: 404, type: "invalid_request", code: "not_found", message: `Batch 'batches/${id.slice(0, 200)}' was not found.` });
const bad = (msg: string, param?: string): Err<ApiError> => ({ ok: false, error: errors.invalidRequest(msg, param) });

/** One request of the batch → a line: the key (metadata.key, or its position) and the GenerateContentRequest. */
function lineOf(model: string, key: string, request: unknown, where: string): Result<NewLine, ApiError> {
  if (!isObject(request)) return bad(`${where}.request: a GenerateContentRequest object is required.`, `${where}.request`);
  if (request.model !== undefined && String(request.model).replace(/^models\//, "") !== model) return bad(`${where}.request.model: must be the batch's model (${model}).`, `${where}.request.model`);
  const body = { ...request };
  delete body.model;
  return { ok: true, value: { customId: key, url: geminiLineUrl(model), body, bodyBytes: Buffer.byteLength(JSON.stringify(body)) } };
}

function inlineLines(model: string, requests: unknown): Result<NewLine[], ApiError> {
  if (!Array.isArray(requests) || requests.length === 0) return bad("batch.inputConfig.requests.requests: a non-empty list of {request, metadata} is required.", "batch.inputConfig.requests");
  if (requests.length > MAX_LINES) return bad(`batch.inputConfig.requests.requests: at most ${MAX_LINES} requests per batch.`, "batch.inputConfig.requests");
  const lines: NewLine[] = [];
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i];
    const where = `batch.inputConfig.requests.requests[${i}]`;
    if (!isObject(r)) return bad(`${where}: must be an object.`, where);
    const key = isObject(r.metadata) && typeof r.metadata.key === "string" ? r.metadata.key : String(i);
    const l = lineOf(model, key, r.request, where);
    if (!l.ok) return l;
    lines.push(l.value);
  }
  return { ok: true, value: lines };
}

/** A file of JSONL `{"key": "…", "request": {…}}` lines (Google's batch input file format). */
function fileLines(model: string, text: string): Result<NewLine[], ApiError> {
  const lines: NewLine[] = [];
  const raw = text.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!.trim();
    if (!t) continue;
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      return bad(`Line ${i + 1} of the input file is not valid JSON.`, "batch.inputConfig.fileName");
    }
    if (!isObject(v)) return bad(`Line ${i + 1} of the input file is not a JSON object.`, "batch.inputConfig.fileName");
    if (lines.length >= MAX_LINES) return bad(`Line ${i + 1} of the input file is past the limit of ${MAX_LINES} requests per batch.`, "batch.inputConfig.fileName");
    const l = lineOf(model, typeof v.key === "string" ? v.key : String(lines.length), v.request, `line ${i + 1}`);
    if (!l.ok) return l;
    lines.push(l.value);
  }
  return lines.length ? { ok: true, value: lines } : bad("The input file has no requests.", "batch.inputConfig.fileName");
}

/** `files/file-…` (the gateway's file id under Google's resource name) → the file id. */
const fileIdOf = (name: string) => name.replace(/^files\//, "");

async function create(ctx: RouteContext): Promise<GatewayResponse> {
  const parsed = await ctx.readJson();
  if (!parsed.ok) return gerr(parsed.error);
  const model = ctx.params.model!.replace(/^models\//, "");
  const b = isObject(parsed.value) && isObject(parsed.value.batch) ? parsed.value.batch : null;
  if (!b || !isObject(b.inputConfig)) return gerr(errors.invalidRequest("`batch.inputConfig` is required: inline `requests` or a `fileName`.", "batch.inputConfig"));
  const ic = b.inputConfig;
  const displayName = typeof b.displayName === "string" ? b.displayName.slice(0, 512) : "";
  const db = await getDb();
  let input: Result<NewLine[], ApiError>;
  let inputFileId: string | null = null;
  if (typeof ic.fileName === "string" && ic.requests === undefined) {
    const file = await getFile(db, ctx.principal, fileIdOf(ic.fileName));
    if (!file) return gerr({ ...fileNotFound(ic.fileName, "batch.inputConfig.fileName"), message: `File '${ic.fileName.slice(0, 200)}' was not found.` });
    if (file.bytes > MAX_INPUT_BYTES) return gerr(errors.invalidRequest("The input file is larger than a batch's limit of 2 GB.", "batch.inputConfig.fileName"));
    const bytes = await readWholeFile(file);
    if (!bytes) return gerr(fileNotFound(ic.fileName, "batch.inputConfig.fileName"));
    inputFileId = file.id;
    input = fileLines(model, bytes.toString("utf8"));
  } else if (isObject(ic.requests) && ic.fileName === undefined) {
    input = inlineLines(model, ic.requests.requests);
  } else return gerr(errors.invalidRequest("`batch.inputConfig` takes exactly one of `requests` and `fileName`.", "batch.inputConfig"));
  if (!input.ok) return gerr(input.error);
  const made = await createBatch(ctx, db, {
    dialect: "gemini",
    endpoint: geminiLineUrl(model),
    inputFileId,
    metadata: { displayName, model },
    webhook: b.webhook ?? (isObject(b.webhookConfig) ? b.webhookConfig.uri : undefined),
    webhookSecret: b.webhook_secret,
    lines: input.value,
  });
  if (!made.ok) return gerr(made.error);
  return json(200, await renderGeminiBatch(db, (await getBatch(db, ctx.principal, made.value.id))!));
}

const STATES: Record<string, string> = { completed: "BATCH_STATE_SUCCEEDED", failed: "BATCH_STATE_FAILED", cancelled: "BATCH_STATE_CANCELLED", expired: "BATCH_STATE_EXPIRED" };
const ENDED = new Set(Object.keys(STATES));

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

/**
 * The batch as Google's long-running Operation: `metadata` is the GenerateContentBatch (what
 * the SDK reads), `response` its output once done — inline responses for inline requests, the
 * responses file's name for a file. Plus `cost_usd` (what its lines were charged so far).
 */
export async function renderGeminiBatch(db: DB, { row, counts }: BatchView, withOutput = true): Promise<Record<string, unknown>> {
  const done = ENDED.has(row.status);
  const pending = row.totalLines - counts.succeeded - counts.failed - counts.cancelled - counts.expired;
  let output: Record<string, unknown> | undefined;
  if (done && withOutput) {
    if (row.inputFileId) output = row.outputFileId ? { responsesFile: `files/${row.outputFileId}` } : {};
    else {
      const inlinedResponses: unknown[] = [];
      for await (const l of batchLinesInOrder(db, row.id)) inlinedResponses.push({ ...geminiLineResult(l), metadata: { key: l.customId } });
      output = { inlinedResponses: { inlinedResponses } };
    }
  }
  const name = `batches/${row.id}`;
  const meta = (row.metadata ?? {}) as Record<string, string>;
  const batch: Record<string, unknown> = {
    "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
    name,
    model: `models/${meta.model ?? ""}`,
    displayName: meta.displayName ?? "",
    inputConfig: row.inputFileId ? { fileName: `files/${row.inputFileId}` } : undefined,
    output,
    createTime: iso(row.createdAt),
    endTime: done ? iso(row.endedAt) : undefined,
    updateTime: iso(row.endedAt ?? row.cancellingAt ?? row.createdAt),
    batchStats: { requestCount: String(row.totalLines), successfulRequestCount: String(counts.succeeded), failedRequestCount: String(counts.failed + counts.cancelled + counts.expired), pendingRequestCount: String(done ? 0 : pending) },
    state: STATES[row.status] ?? (counts.succeeded + counts.failed + counts.running > 0 ? "BATCH_STATE_RUNNING" : "BATCH_STATE_PENDING"),
  };
  const op: Record<string, unknown> = { name, metadata: batch, done };
  if (done && output) op.response = { "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput", ...output };
  op.cost_usd = counts.costMicroUsd / 1_000_000;
  return op;
}

/** A Gemini batch of the viewer, or null (404; another dialect's batch too). */
async function find(ctx: RouteContext): Promise<BatchView | null> {
  const v = await getBatch(await getDb(), ctx.principal, ctx.params.id!.replace(/^batches\//, ""));
  return v && v.row.dialect === "gemini" ? v : null;
}

export async function getGemini(ctx: RouteContext): Promise<GatewayResponse> {
  const v = await find(ctx);
  return v ? json(200, await renderGeminiBatch(await getDb(), v)) : gerr(notFound(ctx.params.id!));
}

/** `pageSize` (1–100, default 50) and `pageToken` (the last batch's id of the page before). */
export async function listGemini(ctx: RouteContext): Promise<GatewayResponse> {
  const q = ctx.req.url.searchParams;
  const size = q.get("pageSize") === null ? 50 : Number(q.get("pageSize"));
  if (!Number.isInteger(size) || size < 1 || size > 100) return gerr(errors.invalidRequest("`pageSize` must be a whole number from 1 to 100.", "pageSize"));
  const db = await getDb();
  const { views, hasMore } = await listBatches(db, ctx.principal, { limit: size, order: "desc", after: q.get("pageToken") || undefined, dialect: "gemini" });
  // A list shows each batch's state and counts; its inline output is read with batches.get.
  const operations = await Promise.all(views.map((v) => renderGeminiBatch(db, v, false)));
  return json(200, hasMore ? { operations, nextPageToken: views.at(-1)!.row.id } : { operations });
}

/**
 * `:cancel` and delete answer Empty: lines in flight finish and are billed, the rest of the hold
 * comes back; delete also hides the batch (store.ts deleteBatch).
 */
async function stop(ctx: RouteContext, how: typeof cancelBatch | typeof deleteBatch): Promise<GatewayResponse> {
  const v = await find(ctx);
  if (!v) return gerr(notFound(ctx.params.id!));
  const db = await getDb();
  await how(db, ctx.principal, v.row.id);
  await finalizeBatch(db, v.row.id);
  return json(200, {});
}

function versionRoutes(version: string): RouteDef[] {
  const routes: RouteDef[] = [
    { method: "POST", path: `/${version}/models/{model}:batchGenerateContent`, bodyLimit: INLINE_BODY_LIMIT, ...GOOGLE, handler: create },
    { method: "POST", path: `/${version}/batches/{id}:cancel`, ...GOOGLE, handler: (ctx) => stop(ctx, cancelBatch) },
    { method: "DELETE", path: `/${version}/batches/{id}`, ...GOOGLE, handler: (ctx) => stop(ctx, deleteBatch) },
  ];
  // `GET /v1/batches[/{id}]` is OpenAI's too: routes.ts dispatches those.
  if (version !== "v1") routes.push({ method: "GET", path: `/${version}/batches`, ...GOOGLE, handler: listGemini }, { method: "GET", path: `/${version}/batches/{id}`, ...GOOGLE, handler: getGemini });
  return routes;
}

export const geminiBatchRoutes: RouteDef[] = [...versionRoutes("v1beta"), ...versionRoutes("v1")];
