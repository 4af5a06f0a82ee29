import { getDb } from "@/db/client";
import { consoleRoute, readBody, requireCapability } from "@/lib/console/route";
import { memberUpdateSchema, removeMember, updateMember } from "@/lib/orgs/manage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PATCH = consoleRoute(async ({ req, user, params }) => updateMember(await getDb(), user, params.userId!, await readBody(req, memberUpdateSchema)), { can: "members" });

/** Removes a member (revoking their keys here); anyone may remove themselves (leave). */
export const DELETE = consoleRoute(async ({ user, params }) => {
  if (params.userId !== user.id) requireCapability(user, "members");
  return removeMember(await getDb(), user, params.userId!);
});
