/**
 * Public API errors are values (ApiError), rendered in one place, in each protocol's own shape
 * (docs/decisions/0015-native-errors-and-carried-signatures.md): the spec's `{error:{message,type,code}}` on the
 * OpenAI-style routes; Anthropic's `{type:"error", error:{type, message}}` on Messages routes and
 * Google's `{error:{code:<HTTP status>, message, status}}` on Gemini routes, each keeping the
 * spec's `code` value (Anthropic: `error.code`; Google: an ErrorInfo detail's `reason`).
 */
import { json, type GatewayResponse } from "./http";

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
  upstreamTimeout: (): ApiError => ({
    status: 504,
    type: "upstream_error",
    code: "upstream_timeout",
    message: "The upstream provider did not answer in time.",
  }),
};

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
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: err.code, domain: "gateway", metadata }],
      },
    };
  }
  const inner: Record<string, unknown> = { message: err.message, type: err.type, code: err.code };
  if (err.param) inner.param = err.param;
  return { error: inner };
}

export function errorResponse(err: ApiError, style: ErrorStyle = "openai"): GatewayResponse {
  return json(err.status, errorBody(err, style), { ...shouldRetryHeader(err.status), ...err.headers });
}

export function isApiError(v: unknown): v is ApiError {
  return typeof v === "object" && v !== null && "status" in v && "code" in v && "type" in v && "message" in v;
}
