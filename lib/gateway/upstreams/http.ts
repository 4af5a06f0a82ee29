/**
 * The one HTTP exchange every upstream adapter makes (text, embeddings, images, video): undici's
 * request API on a shared keep-alive agent (cheaper than fetch + web streams on the hot path,
 * docs/design.md "Serving the public API"), JSON text or a multipart form out, a stream or JSON back,
 * the client's abort signal wired through, and failures as values whose public error comes from
 * errors.ts `classifyFailure` / `transportFailure` — never with the upstream's URL or our key.
 */
import { Agent, type Dispatcher, type FormData } from "undici";
import { processSingleton } from "../../process-singleton";
import { endSpan, upstreamSpan } from "../../tracing";
import { badAnswer, classifyFailure, clientGone, transportFailure, type Outcome } from "../errors";

const agent = processSingleton(
  "gateway.text.upstreamAgent",
  () => new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connect: { timeout: 10_000 } }),
);

/** Upstream JSON answers larger than this are refused (an image is a few MiB of base64). */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;
/** An error answer is read this far for its message, then dropped. */
const MAX_ERROR_BYTES = 64 * 1024;

export interface UpstreamCall {
  /** Default POST. */
  method?: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  /** JSON (serialised by the caller: raw-json `toJson` keeps a passthrough's own bytes), or a multipart form. */
  body?: string | Buffer | FormData;
  /** The client's signal: a disconnect aborts the upstream call. */
  signal?: AbortSignal;
  /** Longest wait for the response head, and longest silence inside the body. */
  timeoutMs: number;
  /** Our credential for this upstream: redacted from any upstream message we pass on. */
  secret?: string | null;
}

export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
}

/** Sends the request and waits for a 2xx head; any other answer is read and classified. */
export async function callUpstream(call: UpstreamCall): Promise<Outcome<UpstreamResponse>> {
  const span = upstreamSpan(call.url); // null unless tracing is on
  if (!span) return exchange(call);
  const r = await exchange(call);
  if (!r.ok) endSpan(span, { status: r.error.status, code: r.error.code });
  else {
    // The span lasts until the upstream's body is read or dropped (a stream ends later).
    span.setAttribute("http.response.status_code", r.value.statusCode);
    r.value.body.once("close", () => endSpan(span));
  }
  return r;
}

/**
 * An upstream URL's origin and path, parsed once: a route's URLs repeat on every request. Bounded
 * (a URL with a per-request part, such as a signed query, must not grow it without end).
 */
const targets = processSingleton("gateway.upstreamTargets", () => new Map<string, { origin: string; path: string }>());
const MAX_TARGETS = 1024;

function targetOf(href: string): { origin: string; path: string } {
  const known = targets();
  let t = known.get(href);
  if (!t) {
    const url = new URL(href);
    t = { origin: url.origin, path: url.pathname + url.search };
    if (known.size >= MAX_TARGETS) known.clear();
    known.set(href, t);
  }
  return t;
}

async function exchange(call: UpstreamCall): Promise<Outcome<UpstreamResponse>> {
  if (call.signal?.aborted) return clientGone();
  let res: Dispatcher.ResponseData;
  try {
    // The agent's own request, not undici's request(url, opts): that copies opts as
    // `{ ...opts, origin, path }`, and such a copy gets a hidden class of its own (decision 0033).
    const target = targetOf(call.url);
    res = await agent().request({
      origin: target.origin,
      path: target.path,
      method: call.method ?? "POST",
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
  } catch (err) {
    return transportFailure(err, call.signal);
  }
  if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, value: { statusCode: res.statusCode, headers: res.headers, body: res.body } };
  const text = await readText(res, MAX_ERROR_BYTES, call.signal, "truncate");
  if (!text.ok && text.error.status === 499) return text;
  // A reset while reading the error body still leaves the status to judge by.
  return classifyFailure(res.statusCode, text.ok ? text.value : "", res.headers, { secret: call.secret, url: call.url });
}

/** Reads a whole 2xx body as a JSON object. */
export async function readJson(res: UpstreamResponse, signal?: AbortSignal, maxBytes = MAX_JSON_BYTES): Promise<Outcome<Record<string, unknown>>> {
  const text = await readText(res, maxBytes, signal, "refuse");
  if (!text.ok) return text;
  try {
    const v = JSON.parse(text.value) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return { ok: true, value: v as Record<string, unknown> };
  } catch {
    /* fall through */
  }
  return badAnswer("The upstream answered with invalid JSON.");
}

/** POST JSON, read JSON: embeddings, images and the video API. */
export async function postJson(call: Omit<UpstreamCall, "body" | "method"> & { body: unknown; maxBytes?: number }): Promise<Outcome<Record<string, unknown>>> {
  // Object.assign, not { ...call, body }: decision 0033.
  const opened = await callUpstream(Object.assign({}, call, { headers: { "content-type": "application/json", accept: "application/json", ...call.headers }, body: JSON.stringify(call.body) }));
  return opened.ok ? readJson(opened.value, call.signal, call.maxBytes) : opened;
}

export async function readText(res: Pick<UpstreamResponse, "headers" | "body">, max: number, signal: AbortSignal | undefined, over: "truncate" | "refuse"): Promise<Outcome<string>> {
  const body = res.body;
  const length = Number(res.headers["content-length"] ?? NaN);
  if (length <= max) {
    // A declared length within the cap: undici's own reader, a loop turn faster than iterating the stream.
    try {
      return { ok: true, value: await body.text() };
    } catch (err) {
      return transportFailure(err, signal);
    }
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        if (over === "truncate") break;
        // Not retryable on this entry (it would answer the same), but another entry may do better.
        return { ...badAnswer("The upstream answer was too large."), retryable: false, failover: true };
      }
      chunks.push(chunk);
    }
  } catch (err) {
    return transportFailure(err, signal);
  }
  return { ok: true, value: chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8") };
}

/** Joins a base URL (with or without a trailing slash) and a path. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

export function bearer(apiKey: string | null): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

/**
 * Vendor headers a same-protocol passthrough forwards (docs/design.md, "Passthrough is faithful"):
 * an allow-list, so the caller's key and hop-by-hop headers never travel.
 */
export function vendorHeaders(headers: Record<string, string | string[] | undefined> | undefined, allow: readonly string[]): Record<string, string> | undefined {
  if (!headers) return undefined;
  let out: Record<string, string> | undefined;
  for (const name of allow) {
    const v = headers[name];
    if (v === undefined) continue;
    (out ??= {})[name] = Array.isArray(v) ? v.join(",") : v;
  }
  return out;
}
