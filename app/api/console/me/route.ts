import { getDb } from "@/db/client";
import { accountBalance } from "@/lib/console/overview";
import { consoleRoute } from "@/lib/console/route";
import { env } from "@/lib/env";
import { ownMembership } from "@/lib/orgs/manage";
import { listUserOrgs } from "@/lib/auth/membership";
import { can, capabilities } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Who is signed in, their organisations (the switcher) and the active one with their role's
 * capabilities. The balance is there for roles that see billing; a member sees their own monthly
 * cap and spend instead (`account` is null).
 */
export const GET = consoleRoute(async ({ user }) => {
  const db = await getDb();
  const [orgs, balance, member] = await Promise.all([listUserOrgs(db, user.id), accountBalance(db, user.accountId), ownMembership(db, user.accountId, user.id)]);
  const org = orgs.find((o) => o.id === user.accountId);
  return {
    user,
    org: { id: user.accountId, name: org?.name ?? "", personal: org?.personal ?? false, role: user.orgRole, capabilities: capabilities(user.orgRole) },
    orgs,
    account: can(user.orgRole, "billing") ? balance : null,
    member: member && { monthlyCapMicroUsd: member.monthlyCapMicroUsd, monthSpentMicroUsd: member.monthSpentMicroUsd, heldMicroUsd: member.heldMicroUsd },
    publicBaseUrl: env().publicBaseUrl,
  };
});
