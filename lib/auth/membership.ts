/** Reading memberships: the active organisation of a session, and a user's organisations. */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { accounts, memberships, type OrgRole } from "../../db/schema";
import type { OrgSummary } from "../views";
export type { OrgSummary };

export interface ActiveMembership {
  accountId: string;
  role: OrgRole;
}

/**
 * The membership for `wanted` when the user has one, else for their personal organisation,
 * else the oldest they have (a personal organisation always exists; the last case is defence).
 */
export async function activeMembership(db: DbOrTx, userId: string, wanted: string | null, personalAccountId: string): Promise<ActiveMembership | null> {
  const ids = wanted && wanted !== personalAccountId ? [wanted, personalAccountId] : [personalAccountId];
  const rows = await db
    .select({ accountId: memberships.accountId, role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), inArray(memberships.accountId, ids)));
  const pick = rows.find((r) => r.accountId === wanted) ?? rows.find((r) => r.accountId === personalAccountId);
  if (pick) return pick;
  const [any] = await db
    .select({ accountId: memberships.accountId, role: memberships.role })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  return any ?? null;
}

/** Every organisation the user belongs to, personal first, then by name. */
export async function listUserOrgs(db: DbOrTx, userId: string): Promise<OrgSummary[]> {
  const rows = await db
    .select({
      id: accounts.id,
      name: accounts.name,
      personal: accounts.personal,
      role: memberships.role,
      members: sql<number>`(select count(*)::int from memberships m2 where m2.account_id = ${accounts.id})`,
    })
    .from(memberships)
    .innerJoin(accounts, eq(accounts.id, memberships.accountId))
    .where(eq(memberships.userId, userId));
  return rows.sort((a, b) => Number(b.personal) - Number(a.personal) || a.name.localeCompare(b.name));
}
