/** Small helpers shared by the request parsers: zod issues → one 400 naming the field. */
import type { z } from "zod";
import { errors, type ApiError } from "../errors";

export function zodError(err: z.ZodError, prefix = ""): ApiError {
  const issue = err.issues[0];
  const path = issue ? issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("") : "";
  const field = `${prefix}${path}`.replace(/^\./, "") || "body";
  const message = issue?.message ?? "invalid request";
  return errors.invalidRequest(`${field}: ${message}`, field);
}

export function bad(field: string, message: string): ApiError {
  return errors.invalidRequest(`${field}: ${message}`, field);
}

/** Strings in CC `stop` may be one string or a list. */
export function toStringList(v: string | string[] | null | undefined): string[] | undefined {
  if (v == null) return undefined;
  return typeof v === "string" ? [v] : v;
}
