/**
 * The error of the console and sign-in flows: a code that maps to an HTTP status, a message for
 * the person, and optionally the form field it belongs to. Thrown by lib/auth, lib/console and
 * lib/redeem; rendered in one place, lib/console/errors.ts.
 */
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
