/**
 * Console API errors: one AppError(code) rendered in one place. Codes map to statuses; a
 * `field` ties a validation error to a form input so the UI can show it beside the field.
 */
import { randomBytes } from "node:crypto";

export type AppErrorCode =
  | "unauthenticated"
  | "forbidden"
  | "cross_origin"
  | "not_found"
  | "invalid_request"
  | "conflict"
  | "rate_limited"
  | "payments_disabled"
  | "email_disabled"
  | "signup_closed"
  | "upstream_error"
  | "internal_error";

const STATUS: Record<AppErrorCode, number> = {
  unauthenticated: 401,
  forbidden: 403,
  cross_origin: 403,
  not_found: 404,
  invalid_request: 400,
  conflict: 409,
  rate_limited: 429,
  payments_disabled: 409,
  email_disabled: 409,
  signup_closed: 403,
  upstream_error: 502,
  internal_error: 500,
};

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly opts: { field?: string; cause?: unknown; retryAfterS?: number } = {},
  ) {
    super(message, { cause: opts.cause });
  }
  get status(): number {
    return STATUS[this.code];
  }
}

export interface ConsoleErrorBody {
  error: { code: AppErrorCode; message: string; field?: string; requestId: string };
}

export function consoleRequestId(): string {
  return `req_${randomBytes(12).toString("base64url")}`;
}

export function errorResponse(err: AppError, requestId = consoleRequestId()): Response {
  const body: ConsoleErrorBody = {
    error: { code: err.code, message: err.message, ...(err.opts.field ? { field: err.opts.field } : {}), requestId },
  };
  const headers: Record<string, string> = { "content-type": "application/json", "cache-control": "no-store", "x-request-id": requestId };
  if (err.opts.retryAfterS) headers["retry-after"] = String(err.opts.retryAfterS);
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

/** A zod error as an AppError naming the first bad field. */
export function fromZod(error: { issues: { path: PropertyKey[]; message: string }[] }): AppError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") || undefined;
  return new AppError("invalid_request", issue ? `${field ? `${field}: ` : ""}${issue.message}` : "Invalid request.", { field });
}

/** The PostgreSQL error code of a failed query (drizzle wraps the driver's error in `cause`). */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}
