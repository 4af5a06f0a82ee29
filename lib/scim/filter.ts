/**
 * The filters provisioning clients send (RFC 7644 §3.4.2.2): `attribute eq "value"`, which is
 * what Okta, Entra ID and OneLogin use to find a user or group before creating it. Anything else
 * is refused with `invalidFilter` rather than answered wrongly.
 */
import { ScimError } from "./errors";

export interface EqFilter {
  /** Lower-cased attribute path, e.g. "username", "emails.value". */
  attribute: string;
  value: string;
}

const EQ = /^\s*([A-Za-z][\w.]*(?:\[[^\]]*\])?(?:\.[A-Za-z]\w*)?)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i;

export function parseFilter(raw: string | null, allowed: readonly string[]): EqFilter | null {
  if (raw === null || raw.trim() === "") return null;
  const m = EQ.exec(raw);
  if (!m) throw new ScimError(400, `Only filters of the form attribute eq "value" are supported, got: ${raw.slice(0, 200)}`, "invalidFilter");
  const attribute = m[1]!.toLowerCase().replace(/\[type eq "work"\]/, "");
  if (!allowed.includes(attribute)) throw new ScimError(400, `Filtering on ${m[1]} is not supported; use one of: ${allowed.join(", ")}.`, "invalidFilter");
  let value: string;
  try {
    value = JSON.parse(`"${m[2]}"`) as string;
  } catch {
    throw new ScimError(400, "The filter's value is not a valid string.", "invalidFilter");
  }
  return { attribute, value };
}

/** startIndex (1-based) and count from the query, within bounds (RFC 7644 §3.4.2.4). */
export function pageOf(q: URLSearchParams): { offset: number; count: number } {
  const start = Number.parseInt(q.get("startIndex") ?? "1", 10);
  const count = Number.parseInt(q.get("count") ?? "100", 10);
  return { offset: Number.isFinite(start) && start > 1 ? start - 1 : 0, count: Number.isFinite(count) ? Math.min(Math.max(count, 0), 200) : 100 };
}
