import { getDb } from "@/db/client";
import { consoleRoute, requireCapability } from "@/lib/console/route";
import { listMembers } from "@/lib/orgs/manage";
import { can } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Members with their roles, caps and this month's spend: for those who manage members or see everyone's usage. */
export const GET = consoleRoute(async ({ user }) => {
  if (!can(user.orgRole, "usage.all")) requireCapability(user, "members");
  return { items: await listMembers(await getDb(), user.accountId) };
});
