/**
 * Fake batch APIs of the three vendors on one loopback server (decision 0070), each under its
 * own prefix and in its own current wire format:
 * - OpenAI (`/openai/v1`): POST /files (multipart, purpose "batch"), POST /batches, GET
 *   /batches/{id} (the Batch object: validating → in_progress → completed, output_file_id /
 *   error_file_id), GET /files/{id}/content (JSONL `{id, custom_id, response:{status_code,
 *   request_id, body}, error}`), POST /batches/{id}/cancel (cancelling → cancelled).
 * - Anthropic (`/anthropic`): POST /v1/messages/batches (`requests[]` of `{custom_id, params}`),
 *   GET …/{id} (`processing_status`, `request_counts`, `results_url`), GET …/{id}/results (JSONL
 *   `{custom_id, result:{type, message|error}}`), POST …/{id}/cancel.
 * - Gemini (`/gemini`): POST /v1beta/models/{model}:batchGenerateContent (inline requests),
 *   GET /v1beta/batches/{id} (the Operation: `metadata` the GenerateContentBatch with `state`,
 *   `done`, `response.inlinedResponses.inlinedResponses`), POST /v1beta/batches/{id}:cancel.
 * - Listing, where the vendor keeps something of the caller's on a batch: OpenAI's GET
 *   /batches?limit&after (newest first, `metadata` as created), Gemini's GET
 *   /v1beta/batches?pageSize&pageToken (`operations`, `metadata.displayName` as created).
 * A request whose prompt says FAIL is answered with the vendor's error for that line. Every
 * request is recorded (method, path, headers, body) for the tests to assert on.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export const VENDOR_KEYS = { openai: "sk-fake-openai-batch", anthropic: "sk-ant-fake-batch", gemini: "AIza-fake-gemini-batch" };
/** Usage each vendor reports per answered line. */
export const USAGE = { input: 5, output: 400 };

export interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface FakeBatch {
  vendor: "openai" | "anthropic" | "gemini";
  id: string;
  model: string;
  /** [custom id, request body] in submitted order. */
  requests: [string, Record<string, unknown>][];
  polls: number;
  cancelled: boolean;
  createdAt: number;
  endpoint?: string;
  inputFileId?: string;
  /** OpenAI's `metadata`, Gemini's `displayName`: what the creator gave to know the batch again. */
  metadata?: Record<string, string> | null;
  displayName?: string;
}

export interface BatchVendors {
  url: string;
  received: Recorded[];
  batches: FakeBatch[];
  /** GETs of a batch before it ends (it stays running while `holdOpen`). */
  pollsToEnd: number;
  holdOpen: boolean;
  /** The next batch creation answers this status (a refused submit). */
  refuseNext: number | null;
  /** Gemini's inline responses carry each request's `metadata.key` (some answers have been seen without it). */
  geminiKeys: boolean;
  /**
   * The next batch creations wait for `until` before answering: with `recorded`, the vendor has
   * the batch meanwhile (its answer is what is late); without, it takes the batch only then.
   */
  holdSubmit: { recorded: boolean; until: Promise<void> } | null;
  close(): Promise<void>;
}

const promptOf = (v: unknown): string => JSON.stringify(v ?? "");
const fails = (body: Record<string, unknown>) => promptOf(body.messages ?? body.contents ?? body.input).includes("FAIL");
const now = () => Math.floor(Date.now() / 1000);

export async function startBatchVendors(): Promise<BatchVendors> {
  const files = new Map<string, string>();
  let seq = 0;
  const next = (p: string) => `${p}${++seq}`;
  const state: BatchVendors = { url: "", received: [], batches: [], pollsToEnd: 2, holdOpen: false, refuseNext: null, geminiKeys: true, holdSubmit: null, close: async () => {} };
  const ended = (b: FakeBatch) => b.cancelled || (!state.holdOpen && b.polls >= state.pollsToEnd);

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const path = req.url ?? "/";
    state.received.push({ method: req.method ?? "", path, headers: req.headers, body: req.headers["content-type"]?.startsWith("multipart/") ? `[multipart ${raw.length} bytes]` : raw.toString("utf8") });
    const send = (status: number, body: unknown, type = "application/json") => {
      res.writeHead(status, { "content-type": type });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    const json = () => JSON.parse(raw.toString("utf8") || "{}") as Record<string, any>;
    const refusal = () => {
      const s = state.refuseNext;
      state.refuseNext = null;
      return s;
    };
    /** A batch creation: `make` records it, around the hold of `holdSubmit`. */
    const created = async (make: () => FakeBatch, answer: (b: FakeBatch) => unknown) => {
      const hold = state.holdSubmit;
      if (hold && !hold.recorded) await hold.until;
      const b = make();
      state.batches.push(b);
      if (hold?.recorded) await hold.until;
      send(200, answer(b));
    };

    // ---- OpenAI ----
    if (path.startsWith("/openai/v1/")) {
      if (req.headers.authorization !== `Bearer ${VENDOR_KEYS.openai}`) return send(401, { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
      const p = path.slice("/openai/v1".length);
      if (req.method === "POST" && p === "/files") {
        const form = await new Response(raw, { headers: { "content-type": req.headers["content-type"]! } }).formData();
        const file = form.get("file") as File;
        const text = await file.text();
        const id = next("file-in");
        files.set(id, text);
        state.received.at(-1)!.body = JSON.stringify({ purpose: form.get("purpose"), filename: file.name, content: text });
        return send(200, { id, object: "file", bytes: Buffer.byteLength(text), created_at: now(), filename: file.name, purpose: form.get("purpose"), status: "processed", expires_at: null, status_details: null });
      }
      const batchObject = (b: FakeBatch) => {
        const done = ended(b);
        const status = done ? (b.cancelled ? "cancelled" : "completed") : b.cancelled ? "cancelling" : b.polls === 0 ? "validating" : "in_progress";
        const answered = done && !b.cancelled ? b.requests : [];
        const ok = answered.filter(([, r]) => !fails(r.body as Record<string, unknown>));
        const bad = answered.filter(([, r]) => fails(r.body as Record<string, unknown>));
        let output_file_id: string | null = null;
        let error_file_id: string | null = null;
        if (done && ok.length) {
          output_file_id = `file-out-${b.id}`;
          files.set(output_file_id, ok.map(([cid, r]) => JSON.stringify({ id: `batch_req_${cid}`, custom_id: cid, response: { status_code: 200, request_id: `req_${cid}`, body: chatCompletion(r.body as Record<string, unknown>) }, error: null })).join("\n") + "\n");
        }
        if (done && bad.length) {
          error_file_id = `file-err-${b.id}`;
          files.set(error_file_id, bad.map(([cid]) => JSON.stringify({ id: `batch_req_${cid}`, custom_id: cid, response: { status_code: 400, request_id: `req_${cid}`, body: { error: { message: "Invalid prompt: FAIL is not allowed.", type: "invalid_request_error", param: "messages", code: null } } }, error: null })).join("\n") + "\n");
        }
        return {
          id: b.id, object: "batch", endpoint: b.endpoint, model: b.model, errors: null, input_file_id: b.inputFileId, completion_window: "24h", status, output_file_id, error_file_id,
          created_at: b.createdAt, in_progress_at: b.polls > 0 ? b.createdAt : null, expires_at: b.createdAt + 86400, finalizing_at: null, completed_at: done && !b.cancelled ? now() : null,
          failed_at: null, expired_at: null, cancelling_at: b.cancelled ? now() : null, cancelled_at: done && b.cancelled ? now() : null,
          request_counts: { total: b.requests.length, completed: ok.length, failed: bad.length }, usage: null, metadata: b.metadata ?? null,
        };
      };
      if (req.method === "POST" && p === "/batches") {
        const s = refusal();
        if (s) return send(s, { error: { message: "Enqueued token limit reached for this model.", type: "invalid_request_error", param: null, code: "token_limit_exceeded" } });
        const body = json();
        const text = files.get(body.input_file_id);
        if (!text || body.completion_window !== "24h") return send(400, { error: { message: "Invalid input_file_id or completion_window.", type: "invalid_request_error", param: "input_file_id", code: null } });
        const requests = text.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
        return created(
          () => ({ vendor: "openai", id: next("batch_fake"), model: requests[0]!.body.model, requests: requests.map((r) => [r.custom_id, r]), polls: 0, cancelled: false, createdAt: now(), endpoint: body.endpoint, inputFileId: body.input_file_id, metadata: body.metadata ?? null }),
          batchObject,
        );
      }
      if (req.method === "GET" && p.startsWith("/batches?")) {
        const q = new URL(p, "http://x").searchParams;
        const all = state.batches.filter((x) => x.vendor === "openai").reverse();
        const from = q.get("after") ? all.findIndex((x) => x.id === q.get("after")) + 1 : 0;
        const page = all.slice(from, from + Number(q.get("limit") ?? 20));
        return send(200, { object: "list", data: page.map(batchObject), first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: from + page.length < all.length });
      }
      const m = /^\/batches\/([^/]+)(\/cancel)?$/.exec(p);
      const b = m && state.batches.find((x) => x.id === m[1]);
      if (m && b && req.method === "GET") {
        b.polls++;
        return send(200, batchObject(b));
      }
      if (m && b && m[2] && req.method === "POST") {
        b.cancelled = true;
        return send(200, batchObject(b));
      }
      const f = /^\/files\/([^/]+)\/content$/.exec(p);
      if (f && req.method === "GET" && files.has(f[1]!)) return send(200, files.get(f[1]!)!, "application/octet-stream");
      return send(404, { error: { message: `Unknown request URL: ${req.method} ${p}`, type: "invalid_request_error", param: null, code: "unknown_url" } });
    }

    // ---- Anthropic ----
    if (path.startsWith("/anthropic/v1/messages/batches")) {
      if (req.headers["x-api-key"] !== VENDOR_KEYS.anthropic || req.headers["anthropic-version"] !== "2023-06-01") return send(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
      const p = path.slice("/anthropic/v1/messages/batches".length);
      const object = (b: FakeBatch) => {
        const done = ended(b);
        const run = done && !b.cancelled ? b.requests : [];
        const errored = run.filter(([, r]) => fails(r)).length;
        return {
          id: b.id, type: "message_batch", processing_status: done ? "ended" : b.cancelled ? "canceling" : "in_progress",
          request_counts: { processing: done ? 0 : b.requests.length, succeeded: run.length - errored, errored, canceled: done && b.cancelled ? b.requests.length : 0, expired: 0 },
          ended_at: done ? new Date().toISOString() : null, created_at: new Date(b.createdAt * 1000).toISOString(), expires_at: new Date((b.createdAt + 86400) * 1000).toISOString(),
          archived_at: null, cancel_initiated_at: b.cancelled ? new Date().toISOString() : null, results_url: done ? `${state.url}/anthropic/v1/messages/batches/${b.id}/results` : null,
        };
      };
      if (req.method === "POST" && p === "") {
        const s = refusal();
        if (s) return send(s, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
        const body = json();
        return created(() => ({ vendor: "anthropic", id: next("msgbatch_fake"), model: body.requests[0].params.model, requests: body.requests.map((r: any) => [r.custom_id, r.params]), polls: 0, cancelled: false, createdAt: now() }), object);
      }
      const m = /^\/([^/]+)(\/cancel|\/results)?$/.exec(p);
      const b = m && state.batches.find((x) => x.id === m[1]);
      if (!b) return send(404, { type: "error", error: { type: "not_found_error", message: "Not found" } });
      if (!m![2] && req.method === "GET") {
        b.polls++;
        return send(200, object(b));
      }
      if (m![2] === "/cancel" && req.method === "POST") {
        b.cancelled = true;
        return send(200, object(b));
      }
      if (m![2] === "/results" && req.method === "GET") {
        const lines = b.requests.map(([cid, r]) => {
          if (b.cancelled) return { custom_id: cid, result: { type: "canceled" } };
          if (fails(r)) return { custom_id: cid, result: { type: "errored", error: { type: "error", error: { type: "invalid_request_error", message: "messages: FAIL is not allowed" } } } };
          return { custom_id: cid, result: { type: "succeeded", message: anthropicMessage(r) } };
        });
        return send(200, lines.map((l) => JSON.stringify(l)).join("\n") + "\n", "application/binary");
      }
    }

    // ---- Gemini ----
    if (path.startsWith("/gemini/v1beta/")) {
      if (req.headers["x-goog-api-key"] !== VENDOR_KEYS.gemini) return send(400, { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } });
      const p = path.slice("/gemini/v1beta/".length);
      const op = (b: FakeBatch) => {
        const done = ended(b);
        const s = done ? (b.cancelled ? "BATCH_STATE_CANCELLED" : "BATCH_STATE_SUCCEEDED") : b.polls === 0 ? "BATCH_STATE_PENDING" : "BATCH_STATE_RUNNING";
        const run = done && !b.cancelled ? b.requests : [];
        const out: Record<string, unknown> = {
          name: b.id,
          metadata: {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch", model: `models/${b.model}`, displayName: b.displayName, createTime: new Date(b.createdAt * 1000).toISOString(),
            updateTime: new Date().toISOString(), batchStats: { requestCount: String(b.requests.length), pendingRequestCount: String(done ? 0 : b.requests.length) }, state: s, name: b.id,
          },
        };
        if (done) {
          out.done = true;
          out.response = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput",
            inlinedResponses: {
              inlinedResponses: run.map(([key, r]) => ({
                ...(fails(r) ? { error: { code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT" } } : { response: geminiResponse(b.model) }),
                ...(state.geminiKeys ? { metadata: { key } } : {}),
              })),
            },
          };
        }
        return out;
      };
      const create = /^models\/([^/:]+):batchGenerateContent$/.exec(p);
      if (create && req.method === "POST") {
        const s = refusal();
        if (s) return send(s, { error: { code: s, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" } });
        const body = json();
        const reqs = body.batch?.inputConfig?.requests?.requests ?? [];
        return created(() => ({ vendor: "gemini", id: next("batches/fake"), model: create[1]!, requests: reqs.map((r: any) => [r.metadata?.key, r.request]), polls: 0, cancelled: false, createdAt: now(), displayName: body.batch?.displayName }), op);
      }
      if (req.method === "GET" && p.startsWith("batches?")) {
        const q = new URL(p, "http://x/").searchParams;
        const all = state.batches.filter((x) => x.vendor === "gemini").reverse();
        const from = Number(q.get("pageToken") || 0);
        const page = all.slice(from, from + Number(q.get("pageSize") ?? 20));
        return send(200, { operations: page.map(op), ...(from + page.length < all.length ? { nextPageToken: String(from + page.length) } : {}) });
      }
      const g = /^(batches\/[^/:]+)(:cancel)?$/.exec(p);
      const b = g && state.batches.find((x) => x.id === g[1]);
      if (b && !g![2] && req.method === "GET") {
        b.polls++;
        return send(200, op(b));
      }
      if (b && g![2] && req.method === "POST") {
        b.cancelled = true;
        return send(200, {});
      }
      return send(404, { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } });
    }
    send(404, { error: "no such route" });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((r) => server.close(() => r()));
  return state;
}

function chatCompletion(body: Record<string, unknown>) {
  return {
    id: "chatcmpl-fake", object: "chat.completion", created: now(), model: body.model, system_fingerprint: "fp_fake",
    choices: [{ index: 0, message: { role: "assistant", content: "batched answer", refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } },
    service_tier: "default",
  };
}

function anthropicMessage(params: Record<string, unknown>) {
  return {
    id: "msg_fake", type: "message", role: "assistant", model: params.model, content: [{ type: "text", text: "batched answer" }], stop_reason: "end_turn", stop_sequence: null,
    usage: { input_tokens: USAGE.input, output_tokens: USAGE.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: "batch" },
  };
}

function geminiResponse(model: string) {
  return {
    candidates: [{ content: { parts: [{ text: "batched answer" }], role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output, promptTokensDetails: [{ modality: "TEXT", tokenCount: USAGE.input }] },
    modelVersion: model, responseId: "fake-response",
  };
}
