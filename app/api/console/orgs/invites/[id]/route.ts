import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { revokeOrgInvite } from "@/lib/orgs/invites";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = consoleRoute(async ({ user, params }) => revokeOrgInvite(await getDb(), user, params.id!), { can: "members" });
