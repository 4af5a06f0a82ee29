/**
 * Request validation with zod: the first issue becomes a 400 invalid_request whose message and
 * `param` name the field (`messages[2].content`), as clients need to fix it.
 */
import type { z } from "zod";
import { errors, type ApiError } from "./errors";
import type { Result } from "../result";

export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((s, seg) => (typeof seg === "number" ? `${s}[${seg}]` : s ? `${s}.${String(seg)}` : String(seg)), "");
}

export function zodError(error: z.ZodError): ApiError {
  const issue = error.issues[0]!;
  const field = fieldPath(issue.path);
  if (!field) return errors.invalidRequest(`Invalid request body: ${issue.message}.`);
  const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
  return errors.invalidRequest(missing ? `Missing required field \`${field}\`.` : `Invalid \`${field}\`: ${issue.message}.`, field);
}

export function validate<T>(schema: z.ZodType<T>, value: unknown): Result<T, ApiError> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: errors.invalidRequest("Request body must be a JSON object.") };
  }
  const r = schema.safeParse(value);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: zodError(r.error) };
}
