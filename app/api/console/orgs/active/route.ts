import { getDb } from "@/db/client";
import { AppError } from "@/lib/console/errors";
import { consoleRoute, readBody } from "@/lib/console/route";
import { withActiveOrg } from "@/lib/orgs/cookie";
import { listUserOrgs } from "@/lib/auth/membership";
import { z } from "zod";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Switches the active organisation (only to one the caller belongs to; 404 otherwise). */
export const PUT = consoleRoute(async ({ req, user }) => {
  const { accountId } = await readBody(req, z.object({ accountId: z.string().min(1).max(100) }));
  const org = (await listUserOrgs(await getDb(), user.id)).find((o) => o.id === accountId);
  if (!org) throw new AppError("not_found", "No such organisation.");
  return withActiveOrg({ org }, org.id);
});
