/** How far a console caller sees inside the active organisation (decision 0018). */
import type { SessionUser } from "../auth/session";
import { memberScope as scopeOf } from "../keys/visibility";
import { parseUsageFilter, type UsageFilter } from "./usage";

/** Roles without "usage.all" (members) see only their own requests, keys and tasks: the user id to scope by, or undefined for all. */
export function memberScope(user: SessionUser): string | undefined {
  return scopeOf(user.id, user.orgRole) ?? undefined;
}

/** The usage filter from the query, with `memberId` forced to the caller when they may see only their own. */
export function scopedUsageFilter(user: SessionUser, params: URLSearchParams): UsageFilter {
  const f = parseUsageFilter(params);
  const own = memberScope(user);
  return own ? { ...f, memberId: own } : f;
}
