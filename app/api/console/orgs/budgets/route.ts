import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { budgetSchema, budgetTargets, listBudgets, setBudget } from "@/lib/orgs/budgets";
import { can } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The organisation's budgets with where each stands. Those who see everyone's usage see all, and
 * (when they may change them) the members and keys a budget can cover; a member sees the budgets
 * that cover them: the organisation's, their own, their keys'.
 */
export const GET = consoleRoute(async ({ user }) => {
  const db = await getDb();
  const all = can(user.orgRole, "usage.all");
  const items = await listBudgets(db, user.accountId, all ? undefined : { userId: user.id });
  return { items, canManage: can(user.orgRole, "billing"), targets: can(user.orgRole, "billing") ? await budgetTargets(db, user.accountId) : null };
});

/** Sets the budget of a target and period (creates it, or changes its limits). */
export const POST = consoleRoute(async ({ req, user }) => ({ budget: await setBudget(await getDb(), user, await readBody(req, budgetSchema)) }), { can: "billing" });
