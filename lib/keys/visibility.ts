/**
 * How far a caller sees inside its organisation (decision 0037). The console and the public API
 * draw the same line: a role with "usage.all" (owner, admin, billing) sees every member's
 * requests, tasks and stored responses; a member sees only what their own keys (and their
 * console session) made. Another member's id is then a 404, exactly like another organisation's.
 */
import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import { can, type OrgRole } from "../orgs/roles";

/**
 * The member a caller is confined to, or null for the whole organisation: null when the role may
 * see everyone's usage, or when nobody made the key (the operator's CLI made it for the account).
 */
export function memberScope(creatorUserId: string | null, role: OrgRole | null): string | null {
  if (!creatorUserId) return null;
  return role && can(role, "usage.all") ? null : creatorUserId;
}

/** Rows made by one member: with a key they created, or (`userId`, where the table has one) in their session. */
export function madeByMember(accountId: string, memberId: string, keyId: AnyColumn, userId?: AnyColumn): SQL {
  const keys = sql`${keyId} in (select ${apiKeys.id} from ${apiKeys} where ${apiKeys.accountId} = ${accountId} and ${apiKeys.createdByUserId} = ${memberId})`;
  return userId ? sql`(${userId} = ${memberId} or ${keys})` : sql`(${keys})`;
}

/** Who asks, as far as visibility goes (a Principal is one). */
export interface Viewer {
  accountId: string;
  memberScope: string | null;
}

/** The rows of `table` the viewer may reach: its organisation's, and within it only its member's when confined. */
export function visibleTo(v: Viewer, cols: { accountId: AnyColumn; keyId: AnyColumn; userId?: AnyColumn }): SQL {
  const own = sql`${cols.accountId} = ${v.accountId}`;
  return v.memberScope ? sql`${own} and ${madeByMember(v.accountId, v.memberScope, cols.keyId, cols.userId)}` : own;
}
