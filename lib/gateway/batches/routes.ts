/**
 * Batches in three dialects on one engine (runner.ts): OpenAI's `/v1/batches` (a JSONL input file
 * of requests, output and error files) and Anthropic's Message Batches (`/v1/messages/batches`,
 * requests inline, results as JSONL); Gemini batch mode is gemini.ts. A batch is read in the dialect it was created in; another
 * organisation's id (or the other dialect's) answers 404.
 */
import { getDb } from "../../../db/client";
import { env } from "../../env";
import { errors, type ApiError } from "../errors";
import type { Result } from "../../result";
import { json, type GatewayRequest, type GatewayResponse } from "../http";
import { isGoogleRequest } from "../auth";
import type { RouteContext, RouteDef } from "../types";
import { fileNotFound, pageQuery } from "../files/routes";
import { getFile, readWholeFile } from "../files/store";
import { createBatch, MAX_LINES, metadataOf, type NewLine } from "./create";
import { anthropicResults, renderAnthropicBatch, renderOpenAIBatch } from "./render";
import { finalizeBatch } from "./runner";
import { geminiBatchRoutes, getGemini, listGemini } from "./gemini";
import { isGoogleCaller } from "../routes/google";
import { cancelBatch, getBatch, listBatches, type BatchView } from "./store";

/** The endpoints an OpenAI batch may run. */
const OPENAI_ENDPOINTS = ["/v1/chat/completions", "/v1/responses", "/v1/embeddings"];
/** OpenAI's limit on a batch input file. */
const MAX_INPUT_BYTES = 200 * 1024 * 1024;

const batchNotFound = (id: string): ApiError => ({ status: 404, type: "invalid_request", code: "not_found", message: `No batch found with id '${id.slice(0, 200)}'.`, param: "batch_id" });

/** Where the client reaches us (PUBLIC_BASE_URL), for Anthropic's `results_url`. */
function baseUrl(_ctx: RouteContext): string {
  return env().publicBaseUrl.replace(/\/$/, "");
}

/** The JSONL input file's lines, each `{custom_id, method: "POST", url: endpoint, body}`; the first bad line is named. */
function parseInput(text: string, endpoint: string): Result<NewLine[], ApiError> {
  const lines: NewLine[] = [];
  const seen = new Set<string>();
  const raw = text.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!.trim();
    if (!t) continue;
    const bad = (why: string) => ({ ok: false as const, error: errors.invalidRequest(`Line ${i + 1} of the input file ${why}`, "input_file_id") });
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      return bad("is not valid JSON.");
    }
    const l = v as { custom_id?: unknown; method?: unknown; url?: unknown; body?: unknown };
    if (!v || typeof v !== "object" || Array.isArray(v)) return bad("is not a JSON object.");
    if (typeof l.custom_id !== "string" || !l.custom_id || l.custom_id.length > 512) return bad("needs a `custom_id` string (1 to 512 characters).");
    if (seen.has(l.custom_id)) return bad(`repeats the custom_id '${l.custom_id.slice(0, 64)}'; each must be unique.`);
    seen.add(l.custom_id);
    if (l.method !== "POST") return bad("needs `method: \"POST\"`.");
    if (l.url !== endpoint) return bad(`has url '${String(l.url).slice(0, 64)}'; every line must call the batch's endpoint ${endpoint}.`);
    if (!l.body || typeof l.body !== "object" || Array.isArray(l.body)) return bad("needs a `body` object.");
    if (lines.length >= MAX_LINES) return bad(`is past the limit of ${MAX_LINES} requests per batch.`);
    lines.push({ customId: l.custom_id, url: endpoint, body: l.body as Record<string, unknown>, bodyBytes: Buffer.byteLength(JSON.stringify(l.body)) });
  }
  if (!lines.length) return { ok: false, error: errors.invalidRequest("The input file has no requests.", "input_file_id") };
  return { ok: true, value: lines };
}

async function createOpenAI(ctx: RouteContext): Promise<GatewayResponse> {
  const parsed = await ctx.readJson();
  if (!parsed.ok) return ctx.error(parsed.error);
  const b = (parsed.value ?? {}) as Record<string, unknown>;
  if (typeof b.input_file_id !== "string") return ctx.error(errors.invalidRequest("`input_file_id` is required.", "input_file_id"));
  if (b.endpoint === "/v1/completions") return ctx.error(errors.invalidRequest("Batches of /v1/completions are not run by this gateway; use /v1/chat/completions, /v1/responses or /v1/embeddings.", "endpoint"));
  if (typeof b.endpoint !== "string" || !OPENAI_ENDPOINTS.includes(b.endpoint)) return ctx.error(errors.invalidRequest(`\`endpoint\` must be one of ${OPENAI_ENDPOINTS.join(", ")}.`, "endpoint"));
  if (b.completion_window !== "24h") return ctx.error(errors.invalidRequest('`completion_window` must be "24h".', "completion_window"));
  const metadata = metadataOf(b.metadata);
  if (!metadata.ok) return ctx.error(metadata.error);
  const db = await getDb();
  const file = await getFile(db, ctx.principal, b.input_file_id);
  if (!file) return ctx.error(fileNotFound(b.input_file_id, "input_file_id"));
  if (file.purpose !== "batch") return ctx.error(errors.invalidRequest(`File ${file.id} was uploaded with purpose '${file.purpose}'; a batch's input file needs purpose 'batch'.`, "input_file_id"));
  if (file.bytes > MAX_INPUT_BYTES) return ctx.error(errors.invalidRequest(`The input file is larger than a batch's limit of 200 MB.`, "input_file_id"));
  const bytes = await readWholeFile(file);
  if (!bytes) return ctx.error(fileNotFound(b.input_file_id, "input_file_id"));
  const input = parseInput(bytes.toString("utf8"), b.endpoint);
  if (!input.ok) return ctx.error(input.error);
  const made = await createBatch(ctx, db, { dialect: "openai", endpoint: b.endpoint, inputFileId: file.id, metadata: metadata.value, webhook: b.webhook, webhookSecret: b.webhook_secret, lines: input.value });
  if (!made.ok) return ctx.error(made.error);
  const view = await getBatch(db, ctx.principal, made.value.id);
  return json(200, renderOpenAIBatch(view!));
}

/** A batch of the viewer in this dialect, or null (404). */
async function find(ctx: RouteContext, dialect: "openai" | "anthropic"): Promise<BatchView | null> {
  const v = await getBatch(await getDb(), ctx.principal, ctx.params.id!);
  return v && v.row.dialect === dialect ? v : null;
}

async function retrieveOpenAI(ctx: RouteContext): Promise<GatewayResponse> {
  const v = await find(ctx, "openai");
  return v ? json(200, renderOpenAIBatch(v)) : ctx.error(batchNotFound(ctx.params.id!));
}

async function cancel(ctx: RouteContext, dialect: "openai" | "anthropic"): Promise<GatewayResponse> {
  const v = await find(ctx, dialect);
  if (!v) return ctx.error(batchNotFound(ctx.params.id!));
  const db = await getDb();
  await cancelBatch(db, ctx.principal, v.row.id);
  // Nothing in flight: it ends now, and the unspent hold is back before the answer.
  await finalizeBatch(db, v.row.id);
  const after = (await find(ctx, dialect))!;
  return json(200, dialect === "openai" ? renderOpenAIBatch(after) : renderAnthropicBatch(after, baseUrl(ctx)));
}

async function list(ctx: RouteContext, dialect: "openai" | "anthropic"): Promise<GatewayResponse> {
  const page = pageQuery(ctx, dialect === "openai" ? 100 : 1000, 20);
  if (!page.ok) return ctx.error(page.error);
  const q = ctx.req.url.searchParams;
  const after = dialect === "openai" ? page.value.after : (q.get("after_id") ?? undefined);
  const { views, hasMore } = await listBatches(await getDb(), ctx.principal, { limit: page.value.limit, order: "desc", after, dialect });
  if (dialect === "openai") return json(200, { object: "list", data: views.map(renderOpenAIBatch), first_id: views[0]?.row.id ?? null, last_id: views.at(-1)?.row.id ?? null, has_more: hasMore });
  return json(200, { data: views.map((v) => renderAnthropicBatch(v, baseUrl(ctx))), first_id: views[0]?.row.id ?? null, last_id: views.at(-1)?.row.id ?? null, has_more: hasMore });
}

// ---- Anthropic Message Batches ----

const anthropicNotFound = (id: string): ApiError => ({ status: 404, type: "not_found", code: "not_found", message: `No message batch found with id '${id.slice(0, 200)}'.` });

async function createAnthropic(ctx: RouteContext): Promise<GatewayResponse> {
  const parsed = await ctx.readJson();
  if (!parsed.ok) return ctx.error(parsed.error);
  const b = (parsed.value ?? {}) as Record<string, unknown>;
  const requests = b.requests;
  if (!Array.isArray(requests) || requests.length === 0) return ctx.error(errors.invalidRequest("requests: a non-empty list of {custom_id, params} is required.", "requests"));
  if (requests.length > 100_000) return ctx.error(errors.invalidRequest("requests: at most 100,000 requests per batch.", "requests"));
  const lines: NewLine[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i] as { custom_id?: unknown; params?: unknown };
    if (!r || typeof r.custom_id !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id)) return ctx.error(errors.invalidRequest(`requests.${i}.custom_id: 1 to 64 letters, digits, - or _.`, `requests.${i}.custom_id`));
    if (seen.has(r.custom_id)) return ctx.error(errors.invalidRequest(`requests.${i}.custom_id: '${r.custom_id}' is used twice; each must be unique.`, `requests.${i}.custom_id`));
    seen.add(r.custom_id);
    if (!r.params || typeof r.params !== "object" || Array.isArray(r.params)) return ctx.error(errors.invalidRequest(`requests.${i}.params: a Messages request object is required.`, `requests.${i}.params`));
    if ((r.params as { stream?: unknown }).stream === true) return ctx.error(errors.invalidRequest(`requests.${i}.params.stream: streaming is not supported in a batch.`, `requests.${i}.params.stream`));
    lines.push({ customId: r.custom_id, url: "/v1/messages", body: r.params as Record<string, unknown>, bodyBytes: Buffer.byteLength(JSON.stringify(r.params)) });
  }
  const db = await getDb();
  const made = await createBatch(ctx, db, { dialect: "anthropic", endpoint: "/v1/messages", inputFileId: null, metadata: null, webhook: b.webhook, webhookSecret: b.webhook_secret, lines });
  if (!made.ok) return ctx.error(made.error);
  return json(200, renderAnthropicBatch((await getBatch(db, ctx.principal, made.value.id))!, baseUrl(ctx)));
}

async function retrieveAnthropic(ctx: RouteContext): Promise<GatewayResponse> {
  const v = await find(ctx, "anthropic");
  return v ? json(200, renderAnthropicBatch(v, baseUrl(ctx))) : ctx.error(anthropicNotFound(ctx.params.id!));
}

/** Anthropic's results JSONL: one line per request, `succeeded` (the Message), `errored`, `canceled` or `expired`. */
async function resultsAnthropic(ctx: RouteContext): Promise<GatewayResponse> {
  const v = await find(ctx, "anthropic");
  if (!v) return ctx.error(anthropicNotFound(ctx.params.id!));
  if (!v.row.endedAt) return ctx.error({ status: 400, type: "invalid_request", code: "invalid_request", message: `Message batch ${v.row.id} is still processing; its results are available once it has ended.` });
  const db = await getDb();
  return { status: 200, headers: { "content-type": "application/binary" }, body: anthropicResults(db, v.row.id) };
}

const anthropic = { transports: { xApiKey: true }, errorStyle: "anthropic" as const };
/** A batch's requests inline: up to 256 MB, Anthropic's own limit. */
const ANTHROPIC_BODY_LIMIT = 256 * 1024 * 1024;

/** Google's credentials get Google's error shape, a bad key's 401 included. */
const googleOrOpenAI = { transports: { queryKey: true, googApiKey: true }, errorStyle: (req: GatewayRequest) => (isGoogleRequest(req) ? ("gemini" as const) : ("openai" as const)) };

export const batchRoutes: RouteDef[] = [
  { method: "POST", path: "/v1/batches", handler: createOpenAI },
  // Gemini's batches.list/get under `v1` share these paths: a Google caller gets Gemini's.
  { method: "GET", path: "/v1/batches", ...googleOrOpenAI, handler: (ctx) => (isGoogleCaller(ctx) ? listGemini(ctx) : list(ctx, "openai")) },
  { method: "GET", path: "/v1/batches/{id}", ...googleOrOpenAI, handler: (ctx) => (isGoogleCaller(ctx) ? getGemini(ctx) : retrieveOpenAI(ctx)) },
  { method: "POST", path: "/v1/batches/{id}/cancel", handler: (ctx) => cancel(ctx, "openai") },
  { method: "POST", path: "/v1/messages/batches", bodyLimit: ANTHROPIC_BODY_LIMIT, ...anthropic, handler: createAnthropic },
  { method: "GET", path: "/v1/messages/batches", ...anthropic, handler: (ctx) => list(ctx, "anthropic") },
  { method: "GET", path: "/v1/messages/batches/{id}", ...anthropic, handler: retrieveAnthropic },
  { method: "POST", path: "/v1/messages/batches/{id}/cancel", ...anthropic, handler: (ctx) => cancel(ctx, "anthropic") },
  { method: "GET", path: "/v1/messages/batches/{id}/results", ...anthropic, handler: resultsAnthropic },
  ...geminiBatchRoutes,
];
