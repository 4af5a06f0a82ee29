import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { withActiveOrg } from "@/lib/orgs/cookie";
import { acceptOrgInvite } from "@/lib/orgs/invites";
import { z } from "zod";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Accepts an organisation invite for the signed-in user and makes that organisation active. */
export const POST = consoleRoute(async ({ req, user }) => {
  const { token } = await readBody(req, z.object({ token: z.string().min(1).max(200) }));
  const joined = await acceptOrgInvite(await getDb(), user, token);
  return withActiveOrg({ joined }, joined.accountId);
});
