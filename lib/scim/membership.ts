/**
 * What a SCIM change does to the organisation's members. Active: a membership with the role
 * the person's groups map to (else the organisation's default role). Deactivated or deleted:
 * the membership goes, the keys the member made in the organisation are revoked, and the user's
 * sessions end (sessionVersion bump) — the caller announces the revoked hashes after commit so
 * every instance's key cache drops them before the next request (decision 0061). Owners are
 * left alone: ownership is moved by a person in the console, never by a directory.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { apiKeys, memberships, orgIdentity, scimGroupMembers, scimGroups, scimUsers, users, type OrgRole } from "../../db/schema";
import { recordAudit } from "../audit/record";
import { ScimError } from "./errors";

/** The most capable mapped role wins: admin, then member, then billing. */
const RANK: Record<string, number> = { admin: 3, member: 2, billing: 1 };

export async function roleFor(tx: Tx, accountId: string, scimUserId: string): Promise<OrgRole> {
  const [identity] = await tx.select({ defaultRole: orgIdentity.defaultRole, groupRoles: orgIdentity.groupRoles }).from(orgIdentity).where(eq(orgIdentity.accountId, accountId));
  const groups = await tx
    .select({ name: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(eq(scimGroupMembers.scimUserId, scimUserId));
  let best: OrgRole | null = null;
  for (const g of groups) {
    const r = identity?.groupRoles[g.name];
    if (r && r !== "owner" && (!best || RANK[r]! > RANK[best]!)) best = r;
  }
  return best ?? identity?.defaultRole ?? "member";
}

/** Makes (or keeps) the user a member with `role`; an owner stays owner. */
export async function ensureMember(tx: Tx, accountId: string, userId: string, role: OrgRole, actor: string): Promise<boolean> {
  const [m] = await tx.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId)));
  if (m?.role === "owner" || m?.role === role) return false;
  if (m) await tx.update(memberships).set({ role }).where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId)));
  else await tx.insert(memberships).values({ accountId, userId, role });
  await recordAudit(tx, { actorUserId: null, actor, action: m ? "org.member_update" : "org.member_add", targetType: "user", targetId: userId, details: { accountId, via: "scim", ...(m ? { before: { role: m.role }, after: { role } } : { role }) } });
  return true;
}

/** Ends the membership; returns the revoked keys' hashes (to announce after commit). */
export async function endMember(tx: Tx, accountId: string, userId: string, actor: string, why: "deactivate" | "delete"): Promise<string[]> {
  const [m] = await tx.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId)));
  if (m?.role === "owner") throw new ScimError(409, "This user owns the organisation; an owner is not deprovisioned by SCIM. Transfer ownership in the console first.", "mutability");
  if (m) await tx.delete(memberships).where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId)));
  const revoked = await tx
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.createdByUserId, userId), isNull(apiKeys.revokedAt)))
    .returning({ hash: apiKeys.hash, previousHash: apiKeys.previousHash });
  await tx.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, userId));
  await recordAudit(tx, { actorUserId: null, actor, action: why === "delete" ? "org.member_remove" : "org.member_deactivate", targetType: "user", targetId: userId, details: { accountId, via: "scim", keysRevoked: revoked.length, hadMembership: !!m } });
  return revoked.flatMap((r) => [r.hash, r.previousHash]).filter((h): h is string => !!h);
}

/** Re-applies the mapped role to each active user of the organisation named (after a group change). */
export async function reapplyRoles(tx: Tx, accountId: string, scimUserIds: string[], actor: string): Promise<boolean> {
  if (!scimUserIds.length) return false;
  const rows = await tx
    .select({ id: scimUsers.id, userId: scimUsers.userId })
    .from(scimUsers)
    .where(and(eq(scimUsers.accountId, accountId), eq(scimUsers.active, true), inArray(scimUsers.id, scimUserIds)));
  let changed = false;
  for (const r of rows) changed = (await ensureMember(tx, accountId, r.userId, await roleFor(tx, accountId, r.id), actor)) || changed;
  return changed;
}
