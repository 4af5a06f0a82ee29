import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { withActiveOrg } from "@/lib/orgs/cookie";
import { createOrg, orgNameSchema } from "@/lib/orgs/manage";
import { listUserOrgs } from "@/lib/auth/membership";
import { z } from "zod";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The caller's organisations (for the switcher) and which one is active. */
export const GET = consoleRoute(async ({ user }) => ({ items: await listUserOrgs(await getDb(), user.id), activeId: user.accountId }));

/** Creates an organisation owned by the caller (within their limits) and makes it active. */
export const POST = consoleRoute(async ({ req, user }) => {
  const { name } = await readBody(req, z.object({ name: orgNameSchema }));
  const org = await createOrg(await getDb(), user, name);
  return withActiveOrg({ org }, org.id);
});
