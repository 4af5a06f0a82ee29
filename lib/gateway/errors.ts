/**
 * Public API errors are values (ApiError), rendered in one place, in each protocol's own shape
 * (docs/decisions/0015-native-errors-and-carried-signatures.md): the spec's `{error:{message,type,code}}` on the
 * OpenAI-style routes; Anthropic's `{type:"error", error:{type, message}}` on Messages routes and
 * Google's `{error:{code:<HTTP status>, message, status}}` on Gemini routes, each keeping the
 * spec's `code` value (Anthropic: `error.code`; Google: an ErrorInfo detail's `reason`).
 */
import type { BudgetRefusal } from "../billing/port";
import { json, type GatewayResponse } from "./http";
import type { Err, Ok } from "../result";

export interface ApiError {
  status: number;
  type: string;
  code: string;
  message: string;
  /** The offending request field, where there is one. */
  param?: string;
  /** Extra response headers (Retry-After, …). */
  headers?: Record<string, string>;
}

export type ErrorStyle = "openai" | "anthropic" | "gemini";

export const errors = {
  invalidRequest: (message: string, param?: string): ApiError => ({
    status: 400,
    type: "invalid_request",
    code: "invalid_request",
    message,
    param,
  }),
  modelNotSupported: (message: string): ApiError => ({
    status: 400,
    type: "invalid_request",
    code: "model_not_supported",
    message,
    param: "model",
  }),
  invalidToken: (): ApiError => ({
    status: 401,
    type: "authentication_error",
    code: "invalid_token",
    message: "Invalid API key: the key is missing, malformed, unknown, revoked or expired.",
  }),
  insufficientQuota: (message = "Insufficient balance: add funds under Billing."): ApiError => ({
    status: 402,
    type: "insufficient_quota",
    code: "insufficient_user_quota",
    message,
  }),
  keyLimitExceeded: (): ApiError => ({
    status: 402,
    type: "insufficient_quota",
    code: "key_limit_exceeded",
    message: "This API key has reached its spend limit.",
  }),
  /** The key's member reached their monthly cap in the organisation (decision 0018). */
  memberCapExceeded: (capMicroUsd: number): ApiError => ({
    status: 402,
    type: "insufficient_quota",
    code: "member_cap_exceeded",
    message: `Your monthly spending cap in this organisation (${usd(capMicroUsd)}) is reached. Ask an owner or admin to raise it.`,
  }),
  /** A budget's hard limit (decision 0032): names the budget and when it resets. */
  budgetExceeded: (b: BudgetRefusal): ApiError => ({
    status: 402,
    type: "insufficient_quota",
    code: "budget_exceeded",
    message: `${BUDGET_OWNER[b.scope]} ${BUDGET_ADJECTIVE[b.period]} budget ${
      b.leftMicroUsd > 0 ? `(${usd(b.limitMicroUsd)} for ${b.window}) has ${usd(b.leftMicroUsd)} left, less than this request may cost at its output cap` : `(${usd(b.limitMicroUsd)}) is reached for ${b.window}`
    }. It starts again next ${b.period} in the organisation's time zone; an owner, admin or billing member can raise it on the Organisation page.`,
  }),
  accountDisabled: (): ApiError => ({
    status: 403,
    type: "permission_error",
    code: "account_disabled",
    message: "This account is disabled.",
  }),
  modelNotFound: (model: string): ApiError => ({
    status: 404,
    type: "invalid_request",
    code: "model_not_found",
    message: `The model "${truncate(model, 200)}" does not exist or is not available to this key. GET /v1/models lists the models you can use.`,
    param: "model",
  }),
  /** After its shutdownAt (decision 0051): refused before any hold, naming what replaces it. */
  modelShutDown: (model: string, shutdownAt: Date, successor: string | null): ApiError => ({
    status: 410,
    type: "invalid_request",
    code: "model_shut_down",
    message: `The model "${truncate(model, 200)}" was shut down on ${shutdownAt.toISOString()}; ${successor ? `use "${successor}" instead.` : "it has no successor."}`,
    param: "model",
  }),
  notFound: (message = "Not found."): ApiError => ({ status: 404, type: "not_found", code: "not_found", message }),
  methodNotAllowed: (method: string, allowed: string[]): ApiError => ({
    status: 405,
    type: "invalid_request",
    code: "method_not_allowed",
    message: `Method ${truncate(method, 20)} is not allowed here; use ${allowed.join(" or ")}.`,
    headers: { allow: allowed.join(", ") },
  }),
  taskNotReady: (message: string): ApiError => ({ status: 409, type: "invalid_request", code: "task_not_ready", message }),
  mediaExpired: (): ApiError => ({
    status: 410,
    type: "invalid_request",
    code: "media_expired",
    message: "The media of this task has expired (results are kept for 14 days).",
  }),
  payloadTooLarge: (limitBytes: number): ApiError => ({
    status: 413,
    type: "invalid_request",
    code: "payload_too_large",
    message: `Request body is larger than this route's limit of ${formatBytes(limitBytes)} (${limitBytes} bytes).`,
  }),
  rateLimited: (retryAfterS: number): ApiError => ({
    status: 429,
    type: "rate_limit_error",
    code: "rate_limit_exceeded",
    message: `Too many requests; retry after ${retryAfterS} s.`,
    headers: { "retry-after": String(retryAfterS) },
  }),
  tooManyFailedKeys: (retryAfterS: number): ApiError => ({
    status: 429,
    type: "rate_limit_error",
    code: "too_many_failed_keys",
    message: `Too many requests with invalid API keys from this address; retry after ${retryAfterS} s.`,
    headers: { "retry-after": String(retryAfterS) },
  }),
  internal: (requestId: string): ApiError => ({
    status: 500,
    type: "server_error",
    code: "internal_error",
    message: `Internal error (request ${requestId}).`,
  }),
  upstream: (message: string, status = 502): ApiError => ({
    status,
    type: "upstream_error",
    code: "upstream_error",
    message,
  }),
  /** The upstream keeps refusing with 429 after our retries: the client should back off (its hint, when sent). */
  upstreamRateLimited: (message: string, retryAfterMs?: number): ApiError => ({
    status: 429,
    type: "rate_limit_error",
    code: "rate_limit_exceeded",
    message,
    headers: retryAfterHeader(retryAfterMs),
  }),
  /** The upstream stays overloaded (503, Anthropic's 529): 529 `overloaded_error` on Messages routes. */
  upstreamOverloaded: (retryAfterMs?: number): ApiError => ({
    status: 503,
    type: "upstream_error",
    code: "upstream_overloaded",
    message: "The upstream provider is overloaded; retry later.",
    headers: retryAfterHeader(retryAfterMs),
  }),
  /** The upstream's content filter refused the prompt (Azure's `content_filter`): the client's request, a 400. */
  contentFiltered: (message: string): ApiError => ({
    status: 400,
    type: "invalid_request",
    code: "content_filter",
    message,
  }),
  /** A guardrail hook blocked the request or its answer (docs/guardrails.md). */
  contentPolicy: (guardrail: string, reason: string, param?: string): ApiError => ({
    status: 400,
    type: "invalid_request",
    code: "content_policy",
    message: `Blocked by guardrail "${guardrail}": ${reason}`,
    param,
  }),
  upstreamTimeout: (): ApiError => ({
    status: 504,
    type: "upstream_error",
    code: "upstream_timeout",
    message: "The upstream provider did not answer in time.",
  }),
};

/** Retry-After in whole seconds (at least 1), as every SDK reads it; none without a hint. */
function retryAfterHeader(ms: number | undefined): Record<string, string> | undefined {
  return ms === undefined ? undefined : { "retry-after": String(Math.max(1, Math.ceil(ms / 1000))) };
}

/** Dollars as a person reads them: cents when whole cents, else every significant digit. */
function usd(micro: number): string {
  return `$${micro % 10_000 === 0 ? (micro / 1_000_000).toFixed(2) : (micro / 1_000_000).toFixed(6).replace(/0+$/, "")}`;
}

const BUDGET_OWNER = { organisation: "The organisation's", member: "Your", key: "This API key's" } as const;
const BUDGET_ADJECTIVE = { day: "daily", week: "weekly", month: "monthly" } as const;

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${+(n / 1024).toFixed(1)} KiB` : `${n} bytes`;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** 4xx that cannot heal tell the official SDKs not to retry (they retry 408/409/429/5xx by default). */
function shouldRetryHeader(status: number): Record<string, string> {
  return status >= 400 && status < 500 && status !== 409 && status !== 429 ? { "x-should-retry": "false" } : {};
}

/** Anthropic's error type for an HTTP status (reference/messages.md, "Errors"). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 529:
    case 503:
      return "overloaded_error";
  }
  return status >= 500 ? "api_error" : "invalid_request_error";
}

/** Google's canonical status name for an HTTP status (reference/generate-content.md, "Errors"). */
export function googleStatus(status: number): string {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 402:
      return "FAILED_PRECONDITION";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 504:
      return "DEADLINE_EXCEEDED";
    case 502:
    case 503:
      return "UNAVAILABLE";
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

export function errorBody(err: ApiError, style: ErrorStyle = "openai"): Record<string, unknown> {
  if (style === "anthropic") {
    const inner: Record<string, unknown> = { type: anthropicErrorType(err.status), message: err.message, code: err.code };
    if (err.param) inner.param = err.param;
    return { type: "error", error: inner };
  }
  if (style === "gemini") {
    // The Google SDK recognises an error by a numeric `code`; the spec's code rides in ErrorInfo.
    const metadata: Record<string, string> = { type: err.type };
    if (err.param) metadata.param = err.param;
    return {
      error: {
        code: err.status,
        message: err.message,
        status: googleStatus(err.status),
        details: retryInfo(err, [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: err.code, domain: "gateway", metadata }]),
      },
    };
  }
  const inner: Record<string, unknown> = { message: err.message, type: err.type, code: err.code };
  if (err.param) inner.param = err.param;
  return { error: inner };
}

/** Google's clients (Gemini CLI, the genai SDKs) read the wait from a RetryInfo detail, not the header. */
function retryInfo(err: ApiError, details: Record<string, unknown>[]): Record<string, unknown>[] {
  const s = err.headers?.["retry-after"];
  if (s) details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${s}s` });
  return details;
}

/** Anthropic's clients know an overload by 529 (they retry it like a 5xx, honouring Retry-After). */
function statusFor(err: ApiError, style: ErrorStyle): number {
  return style === "anthropic" && err.code === "upstream_overloaded" ? 529 : err.status;
}

export function errorResponse(err: ApiError, style: ErrorStyle = "openai"): GatewayResponse {
  const status = statusFor(err, style);
  return json(status, errorBody(err, style), { ...shouldRetryHeader(status), ...err.headers });
}

/** A request refused before any upstream call, with the model it named (null before one is known) for its log line. */
export interface RequestRefusal extends Err<ApiError> {
  model: string | null;
}

/** A request body read into the capability's request, with the model it named; or refused. */
export type ParsedRequest<Req> = Ok<{ req: Req; model: string }> | RequestRefusal;

export function isApiError(v: unknown): v is ApiError {
  return typeof v === "object" && v !== null && "status" in v && "code" in v && "type" in v && "message" in v;
}

/**
 * An upstream call that produced no result, with the public error already chosen. Every
 * capability (text, embeddings, images, video) gets its failures from the functions below, so
 * the same upstream fault gets the same answer everywhere (docs/reliability.md, "Upstream faults").
 */
export interface UpstreamFailure extends Err<ApiError> {
  /** 429, 408, 5xx, timeouts, resets, garbage: may heal, so it is retried on the same entry, then the next. */
  retryable: boolean;
  /** Not worth repeating on this entry, but another may succeed (the upstream refused our credentials). */
  failover?: boolean;
  /** From the upstream's Retry-After(-ms), when it sent one. */
  retryAfterMs?: number;
}

export type Outcome<T> = Ok<T> | UpstreamFailure;

/** What must never reach the client from an upstream's answer: its address and our credential. */
export interface UpstreamSecrets {
  /** Our API key for this upstream. */
  secret?: string | null;
  /** The URL we called (its host and any port after it are redacted too, with or without the scheme). */
  url?: string;
}

type RawHeaders = Record<string, string | string[] | undefined>;

/**
 * The one verdict on an upstream's non-2xx answer. 429, 408 and 5xx may heal (retry, then
 * fail over); once spent, a 429 stays a 429 and an overload (503, 529) a 503, each with the
 * upstream's wait, so the client backs off instead of retrying at once; other faults are 502.
 * 401/403 are the upstream refusing *our* credentials — the gateway's configuration, not the
 * client's key — so 502 and the next entry; any other 4xx is the request's own fault and comes
 * back with the upstream's status and its message, redacted.
 */
export function classifyFailure(status: number, text: string, headers: RawHeaders = {}, secrets: UpstreamSecrets = {}): UpstreamFailure {
  const retryAfterMs = parseRetryAfter(headers, text);
  if (status === 429)
    return { ok: false, error: errors.upstreamRateLimited(`The upstream is rate limiting: ${upstreamMessage(text, secrets)}`, retryAfterMs), retryable: true, retryAfterMs };
  if (status === 503 || status === 529) return { ok: false, error: errors.upstreamOverloaded(retryAfterMs), retryable: true, retryAfterMs };
  if (status === 408 || status >= 500 || status < 400)
    return { ok: false, error: errors.upstream(`The upstream failed with status ${status}.`), retryable: true, retryAfterMs };
  if (status === 401 || status === 403)
    return { ok: false, error: errors.upstream("The upstream refused the gateway's credentials."), retryable: false, failover: true };
  if (status === 400 && errorCode(text) === "content_filter")
    return { ok: false, error: errors.contentFiltered(`The upstream's content filter refused the prompt: ${upstreamMessage(text, secrets)}`), retryable: false };
  return { ok: false, error: errors.upstream(`The upstream rejected the request: ${upstreamMessage(text, secrets)}`, status), retryable: false };
}

/** `error.code` of an OpenAI-shaped error body (Azure says `content_filter` there), or undefined. */
function errorCode(text: string): unknown {
  try {
    return (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return undefined;
  }
}

/** Network-level failures: timeouts → 504, resets and refusals → 502, both retryable; the client leaving → 499. */
export function transportFailure(err: unknown, signal?: AbortSignal): UpstreamFailure {
  if (signal?.aborted) return clientGone();
  const code = (err as { code?: string } | null)?.code;
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT")
    return { ok: false, error: errors.upstreamTimeout(), retryable: true };
  return { ok: false, error: errors.upstream("The upstream connection failed."), retryable: true };
}

export function clientGone(): UpstreamFailure {
  return { ok: false, error: errors.upstream("The client went away.", 499), retryable: false };
}

/** A 2xx whose content is unusable (not JSON, wrong shape, too large): another try or entry may do better. */
export function badAnswer(message: string): UpstreamFailure {
  return { ok: false, error: errors.upstream(message), retryable: true };
}

/** `error.message` as OpenAI, Anthropic and Gemini all put it, without URLs, hosts or keys. */
export function upstreamMessage(text: string, secrets: UpstreamSecrets = {}): string {
  let message = "";
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const err = parsed.error;
    message = typeof err === "string" ? err : typeof err?.message === "string" ? err.message : typeof parsed.message === "string" ? parsed.message : "";
  } catch {
    message = "";
  }
  message = redactUpstream(message, secrets).trim();
  if (!message) return "no message";
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

/** Our key, the upstream's URL and host, any URL, and anything shaped like a credential. */
export function redactUpstream(message: string, { secret, url }: UpstreamSecrets = {}): string {
  if (secret && secret.length >= 4) message = message.split(secret).join("[redacted]");
  message = message.replace(/https?:\/\/\S+/g, "[url]");
  if (url) {
    try {
      const { hostname } = new URL(url);
      if (hostname) message = message.replace(new RegExp(`${hostname.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?::\\d+)?`, "gi"), "[upstream]");
    } catch {
      // not a URL: nothing more to hide
    }
  }
  return message
    .replace(/\bBearer\s+\S+/gi, "Bearer [redacted]")
    .replace(/\b(sk|key|pk|rk)-[A-Za-z0-9_-]{8,}/g, "[redacted]")
    .replace(/\bAIza[0-9A-Za-z_-]{20,}/g, "[redacted]");
}

/**
 * The upstream's wait, in ms: `retry-after-ms` (OpenAI), `retry-after` in seconds or as an HTTP
 * date (RFC 9110), else a Gemini body's RetryInfo `retryDelay` ("7s", "0.5s").
 */
export function parseRetryAfter(headers: RawHeaders, text = "", now = Date.now()): number | undefined {
  const ms = Number(first(headers["retry-after-ms"]));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const header = first(headers["retry-after"])?.trim();
  if (header) {
    const s = Number(header);
    if (Number.isFinite(s)) return s > 0 ? s * 1000 : undefined;
    const at = Date.parse(header);
    if (Number.isFinite(at)) return at > now ? at - now : undefined;
  }
  return text.includes("RetryInfo") ? retryDelayMs(text) : undefined;
}

/** @see https://cloud.google.com/apis/design/errors (google.rpc.RetryInfo; a Duration is "<seconds>s"). */
function retryDelayMs(text: string): number | undefined {
  try {
    const details = (JSON.parse(text) as { error?: { details?: unknown } }).error?.details;
    if (!Array.isArray(details)) return undefined;
    for (const d of details as { "@type"?: unknown; retryDelay?: unknown }[]) {
      if (typeof d?.["@type"] !== "string" || !d["@type"].endsWith("google.rpc.RetryInfo") || typeof d.retryDelay !== "string") continue;
      const m = /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay);
      const ms = m ? Math.round(Number(m[1]) * 1000) : 0;
      return ms > 0 ? ms : undefined;
    }
  } catch {
    // not JSON: no hint
  }
  return undefined;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
