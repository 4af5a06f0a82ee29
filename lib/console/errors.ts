/**
 * Console API errors: one AppError(code) (lib/app-error.ts) rendered in one place, here. A
 * `field` ties a validation error to a form input so the UI can show it beside the field.
 */
import { randomBytes } from "node:crypto";
import { AppError, type AppErrorCode } from "../app-error";

export { AppError, type AppErrorCode };

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
