/**
 * The vendors' own batch APIs (decision 0070), one small entry per protocol: submit a group of
 * already converted requests (each line's wire body, as the text adapter prepared it), read the
 * batch's state, read its results once it has ended, cancel it. The gateway's batch engine
 * (lib/gateway/batches/native.ts) owns the lines and the money; this file only speaks the wire.
 *
 * @see https://platform.openai.com/docs/guides/batch (JSONL file, POST /v1/batches, output and error files)
 * @see https://docs.anthropic.com/en/api/creating-message-batches (requests[], processing_status, results JSONL)
 * @see https://ai.google.dev/api/batch-api (models.batchGenerateContent, the batch Operation, inlinedResponses)
 */
import { Blob } from "node:buffer";
import { FormData } from "undici";
import type { Outcome } from "../errors";
import { badAnswer } from "../errors";
import type { UpstreamInfo } from "../model-route";
import { ANTHROPIC_VERSION } from "./anthropic-messages";
import { bearer, callUpstream, joinUrl, readJson, readText } from "./http";

/** One request of a vendor batch: our id for it (never the client's), where it goes, its wire body as JSON text. */
export interface VendorLine {
  customId: string;
  /** OpenAI: the endpoint the line calls (`/v1/chat/completions`). */
  url: string;
  body: string;
}

/** What the vendor says of one request once its batch has ended (keyed by our custom id, or `#<position>` when the vendor gave none back). */
export type VendorResult =
  | { type: "succeeded"; json: Record<string, unknown> }
  | { type: "errored"; status: number; message: string }
  | { type: "canceled" }
  | { type: "expired" };

/**
 * A vendor batch's state: running, failed as a whole (nothing ran), or ended with a result per
 * request it reached; `missing` is how a request it gave no result for ends.
 */
export type VendorPoll = { state: "running" } | { state: "failed"; message: string } | { state: "ended"; results: Map<string, VendorResult>; missing: VendorResult };

const NO_RESULT: VendorResult = { type: "errored", status: 502, message: "The vendor's batch gave no result for this request." };

export interface BatchApi {
  /** The most requests and bytes one vendor batch takes. */
  maxLines: number;
  maxBytes: number;
  /**
   * Submits the lines of one model (`upstreamModel`); the vendor's batch id. `tag` (our vendor
   * batch's id) goes with it where the vendor keeps one (OpenAI's metadata, Gemini's display
   * name), so that `find` can tell the batch again.
   */
  submit(up: UpstreamInfo, upstreamModel: string, lines: VendorLine[], tag: string): Promise<Outcome<string>>;
  /**
   * The vendor's id of the batch submitted with `tag` at `since` or later, or null when the vendor
   * has none: for a submitter that died between the vendor's answer and keeping the id. Absent
   * where the vendor keeps nothing of ours on a batch (Anthropic).
   */
  find?(up: UpstreamInfo, tag: string, since: Date): Promise<Outcome<string | null>>;
  poll(up: UpstreamInfo, vendorId: string): Promise<Outcome<VendorPoll>>;
  cancel(up: UpstreamInfo, vendorId: string): Promise<Outcome<unknown>>;
}

/** The metadata key that carries our vendor batch's id on an OpenAI batch. */
const TAG_KEY = "gateway_batch";
/** `find` reads at most this many pages of the vendor's newest batches (100 each)… */
const FIND_PAGES = 5;
/** …and stops at batches older than the submit by more than the clocks may disagree. */
const CLOCK_SKEW_MS = 10 * 60_000;

/** One page of a vendor's batches, newest first: the id of the one with our tag, the next page's cursor ("" for none), the page's oldest creation. */
type FoundPage = { hit: string | undefined; next: string; oldestMs: number };

/** Pages through a vendor's newest batches until one carries our tag, or they are older than the submit. */
async function findInPages(since: Date, page: (cursor: string) => Promise<Outcome<FoundPage>>): Promise<Outcome<string | null>> {
  let cursor = "";
  for (let n = 0; n < FIND_PAGES; n++) {
    const p = await page(cursor);
    if (!p.ok) return p;
    if (p.value.hit) return { ok: true, value: p.value.hit };
    if (!p.value.next || p.value.oldestMs < since.getTime() - CLOCK_SKEW_MS) break;
    cursor = p.value.next;
  }
  return { ok: true, value: null };
}

/** Batch-API calls are small control calls; results may be large. */
const TIMEOUT_MS = 120_000;
const MAX_RESULTS_BYTES = 512 * 1024 * 1024;

async function send(up: UpstreamInfo, url: string, headers: Record<string, string>, body?: string | FormData, method: "GET" | "POST" = "POST"): Promise<Outcome<Record<string, unknown>>> {
  const h = body === undefined || body instanceof FormData ? headers : { "content-type": "application/json", ...headers };
  const opened = await callUpstream({ method, url, headers: { accept: "application/json", ...h }, body, timeoutMs: up.timeoutMs ?? TIMEOUT_MS, secret: up.apiKey });
  return opened.ok ? readJson(opened.value) : opened;
}

async function getText(up: UpstreamInfo, url: string, headers: Record<string, string>): Promise<Outcome<string>> {
  const opened = await callUpstream({ method: "GET", url, headers, timeoutMs: up.timeoutMs ?? TIMEOUT_MS, secret: up.apiKey });
  return opened.ok ? readText(opened.value, MAX_RESULTS_BYTES, undefined, "refuse") : opened;
}

function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const t of text.split("\n")) {
    if (!t.trim()) continue;
    try {
      const v = JSON.parse(t) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      /* a torn line names no request: that request ends as not answered */
    }
  }
  return out;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

// ---- OpenAI: a JSONL file (purpose "batch"), then POST /v1/batches; output and error files ----

const openai: BatchApi = {
  maxLines: 50_000,
  maxBytes: 190 * 1024 * 1024,
  async submit(up, _model, lines, tag) {
    const form = new FormData();
    form.set("purpose", "batch");
    const jsonl = lines.map((l) => `{"custom_id":${JSON.stringify(l.customId)},"method":"POST","url":${JSON.stringify(l.url)},"body":${l.body}}`).join("\n") + "\n";
    form.set("file", new Blob([jsonl], { type: "application/jsonl" }), "batch.jsonl");
    const file = await send(up, joinUrl(up.baseUrl, "files"), bearer(up.apiKey), form);
    if (!file.ok) return file;
    const fileId = str(file.value.id);
    if (!fileId) return badAnswer("The upstream's file upload answered without an id.");
    const batch = await send(up, joinUrl(up.baseUrl, "batches"), bearer(up.apiKey), JSON.stringify({ input_file_id: fileId, endpoint: lines[0]!.url, completion_window: "24h", metadata: { [TAG_KEY]: tag } }));
    if (!batch.ok) return batch;
    const id = str(batch.value.id);
    return id ? { ok: true, value: id } : badAnswer("The upstream's batch answered without an id.");
  },
  async poll(up, vendorId) {
    const b = await send(up, joinUrl(up.baseUrl, `batches/${encodeURIComponent(vendorId)}`), bearer(up.apiKey), undefined, "GET");
    if (!b.ok) return b;
    const status = str(b.value.status);
    if (status === "failed") {
      const first = obj((obj(b.value.errors).data as unknown[] | undefined)?.[0]);
      return { ok: true, value: { state: "failed", message: str(first.message) ?? "The vendor refused the batch." } };
    }
    if (status !== "completed" && status !== "expired" && status !== "cancelled") return { ok: true, value: { state: "running" } };
    const results = new Map<string, VendorResult>();
    for (const fileId of [str(b.value.output_file_id), str(b.value.error_file_id)]) {
      if (!fileId) continue;
      const text = await getText(up, joinUrl(up.baseUrl, `files/${encodeURIComponent(fileId)}/content`), bearer(up.apiKey));
      if (!text.ok) return text;
      for (const line of jsonLines(text.value)) {
        const id = str(line.custom_id);
        if (!id) continue;
        const res = obj(line.response);
        const err = obj(line.error);
        const code = Number(res.status_code);
        if (!line.error && code >= 200 && code < 300) results.set(id, { type: "succeeded", json: obj(res.body) });
        else if (str(err.code) === "batch_expired") results.set(id, { type: "expired" });
        else if (str(err.code) === "batch_cancelled") results.set(id, { type: "canceled" });
        else results.set(id, { type: "errored", status: code >= 400 ? code : 502, message: str(obj(obj(res.body).error).message) ?? str(err.message) ?? "The vendor could not run this request." });
      }
    }
    // Requests a cancelled or expired batch never reached may be left out of both files.
    const missing: VendorResult = status === "cancelled" ? { type: "canceled" } : status === "expired" ? { type: "expired" } : NO_RESULT;
    return { ok: true, value: { state: "ended", results, missing } };
  },
  cancel: (up, vendorId) => send(up, joinUrl(up.baseUrl, `batches/${encodeURIComponent(vendorId)}/cancel`), bearer(up.apiKey), "{}"),
  find: (up, tag, since) =>
    findInPages(since, async (after) => {
      const l = await send(up, joinUrl(up.baseUrl, `batches?limit=100${after && `&after=${encodeURIComponent(after)}`}`), bearer(up.apiKey), undefined, "GET");
      if (!l.ok) return l;
      const data = (Array.isArray(l.value.data) ? l.value.data : []).map(obj);
      const last = data.at(-1);
      return {
        ok: true,
        value: { hit: str(data.find((b) => obj(b.metadata)[TAG_KEY] === tag)?.id), next: (l.value.has_more === true && str(last?.id)) || "", oldestMs: Number(last?.created_at) * 1000 },
      };
    }),
};

// ---- Anthropic: POST /v1/messages/batches with requests[]; results JSONL once `ended` ----

const anthropicHeaders = (up: UpstreamInfo): Record<string, string> => ({ "anthropic-version": ANTHROPIC_VERSION, ...(up.apiKey ? { "x-api-key": up.apiKey } : {}) });

const anthropic: BatchApi = {
  // Anthropic takes 100,000; one statement's parameters (65,535) bound how many lines one vendor batch takes.
  maxLines: 50_000,
  maxBytes: 250 * 1024 * 1024,
  async submit(up, _model, lines) {
    const body = `{"requests":[${lines.map((l) => `{"custom_id":${JSON.stringify(l.customId)},"params":${l.body}}`).join(",")}]}`;
    const b = await send(up, joinUrl(up.baseUrl, "v1/messages/batches"), anthropicHeaders(up), body);
    if (!b.ok) return b;
    const id = str(b.value.id);
    return id ? { ok: true, value: id } : badAnswer("The upstream's message batch answered without an id.");
  },
  async poll(up, vendorId) {
    const b = await send(up, joinUrl(up.baseUrl, `v1/messages/batches/${encodeURIComponent(vendorId)}`), anthropicHeaders(up), undefined, "GET");
    if (!b.ok) return b;
    if (b.value.processing_status !== "ended") return { ok: true, value: { state: "running" } };
    // The documented results endpoint under the configured base URL (not `results_url` as given: our key goes only where we send it).
    const text = await getText(up, joinUrl(up.baseUrl, `v1/messages/batches/${encodeURIComponent(vendorId)}/results`), anthropicHeaders(up));
    if (!text.ok) return text;
    const results = new Map<string, VendorResult>();
    for (const line of jsonLines(text.value)) {
      const id = str(line.custom_id);
      const r = obj(line.result);
      if (!id) continue;
      if (r.type === "succeeded") results.set(id, { type: "succeeded", json: obj(r.message) });
      else if (r.type === "canceled") results.set(id, { type: "canceled" });
      else if (r.type === "expired") results.set(id, { type: "expired" });
      else {
        const e = obj(obj(r.error).error);
        results.set(id, { type: "errored", status: e.type === "invalid_request_error" ? 400 : 502, message: str(e.message) ?? "The vendor could not run this request." });
      }
    }
    return { ok: true, value: { state: "ended", results, missing: NO_RESULT } };
  },
  cancel: (up, vendorId) => send(up, joinUrl(up.baseUrl, `v1/messages/batches/${encodeURIComponent(vendorId)}/cancel`), anthropicHeaders(up), "{}"),
};

// ---- Gemini: models/{model}:batchGenerateContent with inline requests; the Operation's inlinedResponses ----

const googHeaders = (up: UpstreamInfo): Record<string, string> => (up.apiKey ? { "x-goog-api-key": up.apiKey } : {});
/** `batches/{id}`: the name is the vendor id (kept whole). */
const batchPath = (name: string) => `v1beta/${name.split("/").map(encodeURIComponent).join("/")}`;

const gemini: BatchApi = {
  maxLines: 50_000,
  // Inline requests: Google's limit on a batchGenerateContent body is 20 MB.
  maxBytes: 18 * 1024 * 1024,
  async submit(up, model, lines, tag) {
    const requests = lines.map((l) => `{"request":${l.body},"metadata":{"key":${JSON.stringify(l.customId)}}}`).join(",");
    const body = `{"batch":{"displayName":${JSON.stringify(tag)},"inputConfig":{"requests":{"requests":[${requests}]}}}}`;
    const op = await send(up, joinUrl(up.baseUrl, `v1beta/models/${encodeURIComponent(model)}:batchGenerateContent`), googHeaders(up), body);
    if (!op.ok) return op;
    const name = str(op.value.name) ?? str(obj(op.value.metadata).name);
    return name ? { ok: true, value: name } : badAnswer("The upstream's batch answered without a name.");
  },
  async poll(up, vendorId) {
    const op = await send(up, joinUrl(up.baseUrl, batchPath(vendorId)), googHeaders(up), undefined, "GET");
    if (!op.ok) return op;
    const state = str(obj(op.value.metadata).state);
    if (op.value.done !== true && !["BATCH_STATE_SUCCEEDED", "BATCH_STATE_FAILED", "BATCH_STATE_CANCELLED", "BATCH_STATE_EXPIRED"].includes(state ?? "")) return { ok: true, value: { state: "running" } };
    if (state === "BATCH_STATE_FAILED" || op.value.error) return { ok: true, value: { state: "failed", message: str(obj(op.value.error).message) ?? "The vendor's batch failed." } };
    const results = new Map<string, VendorResult>();
    const output = obj(op.value.response);
    const list = (obj(output.inlinedResponses).inlinedResponses ?? obj(obj(obj(op.value.metadata).output).inlinedResponses).inlinedResponses) as unknown[] | undefined;
    for (const [i, item] of (list ?? []).entries()) {
      const r = obj(item);
      // Responses come in the requests' order; one without its key is named by its position.
      const id = str(obj(r.metadata).key) ?? `#${i}`;
      if (r.response) results.set(id, { type: "succeeded", json: obj(r.response) });
      else {
        const e = obj(r.error);
        const code = Number(e.code);
        results.set(id, { type: "errored", status: code >= 400 && code < 600 ? code : 502, message: str(e.message) ?? "The vendor could not run this request." });
      }
    }
    // A cancelled or expired batch answers for what ran; the rest ends the way the batch did.
    const missing: VendorResult = state === "BATCH_STATE_EXPIRED" ? { type: "expired" } : state === "BATCH_STATE_CANCELLED" ? { type: "canceled" } : NO_RESULT;
    return { ok: true, value: { state: "ended", results, missing } };
  },
  cancel: (up, vendorId) => send(up, joinUrl(up.baseUrl, `${batchPath(vendorId)}:cancel`), googHeaders(up), "{}"),
  find: (up, tag, since) =>
    findInPages(since, async (token) => {
      const l = await send(up, joinUrl(up.baseUrl, `v1beta/batches?pageSize=100${token && `&pageToken=${encodeURIComponent(token)}`}`), googHeaders(up), undefined, "GET");
      if (!l.ok) return l;
      const ops = (Array.isArray(l.value.operations) ? l.value.operations : []).map(obj);
      const oldestMs = Math.min(...ops.map((o) => Date.parse(str(obj(o.metadata).createTime) ?? "") || Infinity));
      return { ok: true, value: { hit: str(ops.find((o) => obj(o.metadata).displayName === tag)?.name), next: str(l.value.nextPageToken) ?? "", oldestMs } };
    }),
};

/** The protocols whose vendor has a batch API, and its wire. */
export const BATCH_APIS: Partial<Record<string, BatchApi>> = { openai, anthropic, gemini };

/** The vendors' own hosts: an upstream there batches natively unless it says otherwise. */
const VENDOR_HOSTS: Record<string, string> = { openai: "api.openai.com", anthropic: "api.anthropic.com", gemini: "generativelanguage.googleapis.com" };

/** Whether batch lines served by this upstream go through its vendor's batch API (`batches` setting, default by host). */
export function batchesNatively(up: UpstreamInfo): boolean {
  if (!BATCH_APIS[up.protocol]) return false;
  const set = up.settings?.batches;
  if (set) return set === "native";
  try {
    return new URL(up.baseUrl).hostname === VENDOR_HOSTS[up.protocol];
  } catch {
    return false;
  }
}
