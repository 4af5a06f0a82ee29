/**
 * A model's lifecycle fields (decision 0051) and their rules, shared by the config file and the
 * admin editor so both refuse the same things.
 */
import { z } from "zod";

/** ISO 8601: a date (`2026-09-24`, midnight UTC) or a timestamp with its offset. */
export const lifecycleDate = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: "must be an ISO 8601 date (2026-09-24) or timestamp with offset (2026-09-24T12:00:00Z)",
});

export const LIFECYCLE_FIELDS = ["deprecatedAt", "shutdownAt", "successor", "serveSuccessorAfterShutdown"] as const;

export interface LifecycleFields {
  deprecatedAt?: Date | null;
  shutdownAt?: Date | null;
  successor?: string | null;
  serveSuccessorAfterShutdown?: boolean;
}

/**
 * What is wrong with `m`'s lifecycle, given the kind of each model id (undefined = no such
 * model). The successor is a model id (not an alias) of the same kind, never the model itself.
 */
export function lifecycleProblems(
  m: { id: string; kind: string } & LifecycleFields,
  kindOf: (id: string) => string | undefined,
): { field: (typeof LIFECYCLE_FIELDS)[number]; message: string }[] {
  const out: { field: (typeof LIFECYCLE_FIELDS)[number]; message: string }[] = [];
  if (m.shutdownAt && !m.deprecatedAt) out.push({ field: "deprecatedAt", message: "is required with shutdownAt (on or before it)" });
  if (m.shutdownAt && m.deprecatedAt && m.deprecatedAt > m.shutdownAt) out.push({ field: "shutdownAt", message: "must not be before deprecatedAt" });
  if (m.successor) {
    const kind = kindOf(m.successor);
    if (m.successor === m.id) out.push({ field: "successor", message: "cannot be the model itself" });
    else if (kind === undefined) out.push({ field: "successor", message: `no model with id "${m.successor}" (a successor is a model id, not an alias)` });
    else if (kind !== m.kind) out.push({ field: "successor", message: `"${m.successor}" is ${a(kind)} model; the successor must be ${a(m.kind)} model` });
  }
  if (m.serveSuccessorAfterShutdown && (!m.successor || !m.shutdownAt))
    out.push({ field: "serveSuccessorAfterShutdown", message: "needs a successor and a shutdownAt" });
  return out;
}

const a = (kind: string) => `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;

/** Config strings → the stored dates (a bare date is midnight UTC). */
export function lifecycleDates(m: { deprecatedAt?: string; shutdownAt?: string }): { deprecatedAt: Date | null; shutdownAt: Date | null } {
  return { deprecatedAt: m.deprecatedAt ? new Date(m.deprecatedAt) : null, shutdownAt: m.shutdownAt ? new Date(m.shutdownAt) : null };
}
