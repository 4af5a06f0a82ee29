/**
 * The HTTP exchange of the text adapters: undici's request API on a shared keep-alive agent
 * (cheaper than fetch + web streams on the hot path, DESIGN.md "Serving the public API"), the
 * client's abort signal wired through, and failures as values with the public error chosen.
 * Messages never carry the upstream's URL or credentials.
 */
import { Agent, request, type Dispatcher } from "undici";
import { endSpan, upstreamSpan } from "../../tracing";
import { errors } from "../errors";
import type { Outcome, UpstreamFailure } from "./text-types";

const AGENT = Symbol.for("gateway.text.upstreamAgent");
function agent(): Agent {
  const g = globalThis as unknown as Record<symbol, Agent | undefined>;
  return (g[AGENT] ??= new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connect: { timeout: 10_000 } }));
}

export interface OpenInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Longest wait for the response head, and longest silence inside the body. */
  timeoutMs: number;
  /** Redacted from any upstream message we pass on. */
  secret?: string | null;
}

export interface OpenResponse {
  statusCode: number;
  body: Dispatcher.ResponseData["body"];
}

/** Sends the request and waits for a 2xx head; any other answer is read and classified. */
export async function openUpstream(input: OpenInput): Promise<Outcome<OpenResponse>> {
  const span = upstreamSpan(input.url); // null unless tracing is on
  if (!span) return exchange(input);
  const r = await exchange(input);
  if (!r.ok) endSpan(span, { status: r.error.status, code: r.error.code });
  else {
    // The span lasts until the upstream's body is read or dropped (a stream ends later).
    span.setAttribute("http.response.status_code", r.value.statusCode);
    r.value.body.once("close", () => endSpan(span));
  }
  return r;
}

async function exchange(input: OpenInput): Promise<Outcome<OpenResponse>> {
  if (input.signal.aborted) return clientGone();
  let res: Dispatcher.ResponseData;
  try {
    res = await request(input.url, {
      method: "POST",
      headers: input.headers,
      body: input.body,
      signal: input.signal,
      dispatcher: agent(),
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    });
  } catch (err) {
    return transportFailure(err, input.signal);
  }
  if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, value: { statusCode: res.statusCode, body: res.body } };
  let text = "";
  try {
    text = await res.body.text();
  } catch (err) {
    return transportFailure(err, input.signal);
  }
  return statusFailure(res.statusCode, text, res.headers, input.secret);
}

/** Reads a whole 2xx body as JSON. */
export async function readJson(res: OpenResponse, signal: AbortSignal): Promise<Outcome<Record<string, unknown>>> {
  let text: string;
  try {
    text = await res.body.text();
  } catch (err) {
    return transportFailure(err, signal);
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return { ok: true, value: v as Record<string, unknown> };
  } catch {
    /* fall through */
  }
  return { ok: false, error: errors.upstream("The upstream answered with invalid JSON."), retryable: true };
}

export function clientGone(): UpstreamFailure {
  return { ok: false, error: errors.upstream("The client went away.", 499), retryable: false };
}

/** Network-level failures: timeouts → 504, resets and refusals → 502, both retryable. */
export function transportFailure(err: unknown, signal: AbortSignal): UpstreamFailure {
  if (signal.aborted) return clientGone();
  const code = (err as { code?: string } | null)?.code;
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT")
    return { ok: false, error: errors.upstreamTimeout(), retryable: true };
  return { ok: false, error: errors.upstream("The upstream connection failed."), retryable: true };
}

/**
 * 429 and 5xx may heal (retry, then fail over); the upstream refusing our credentials is our
 * configuration, not the client's request (502, try the next route); any other 4xx is the
 * request's fault and comes back with the upstream's status and message.
 */
export function statusFailure(
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined> = {},
  secret?: string | null,
): UpstreamFailure {
  const message = upstreamMessage(text, secret);
  const retryAfterMs = parseRetryAfter(headers);
  if (status === 429)
    return { ok: false, error: errors.upstream(`The upstream is rate limiting: ${message}`), retryable: true, retryAfterMs };
  if (status >= 500 || status < 400)
    return { ok: false, error: errors.upstream(`The upstream failed with status ${status}.`), retryable: true, retryAfterMs };
  if (status === 401 || status === 403)
    return { ok: false, error: errors.upstream("The upstream refused the gateway's credentials."), retryable: false, failover: true };
  return { ok: false, error: errors.upstream(`The upstream rejected the request: ${message}`, status), retryable: false };
}

/** `error.message` as OpenAI, Anthropic and Gemini all put it, without URLs or our key. */
export function upstreamMessage(text: string, secret?: string | null): string {
  let message = "";
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const err = parsed.error;
    message = typeof err === "string" ? err : typeof err?.message === "string" ? err.message : typeof parsed.message === "string" ? parsed.message : "";
  } catch {
    message = "";
  }
  if (secret && secret.length >= 4) message = message.split(secret).join("[redacted]");
  message = message.replace(/https?:\/\/\S+/g, "[url]").replace(/\b(sk|key)-[A-Za-z0-9_-]{8,}/g, "[redacted]").trim();
  if (!message) return "no message";
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

function parseRetryAfter(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = Number(first(headers["retry-after-ms"]));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const s = Number(first(headers["retry-after"]));
  if (Number.isFinite(s) && s > 0) return s * 1000;
  return undefined;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/**
 * Vendor headers a same-protocol passthrough forwards (DESIGN.md, "Passthrough is faithful"):
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
