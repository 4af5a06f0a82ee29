import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { orgSettings, orgSettingsSchema, updateOrgSettings } from "@/lib/orgs/manage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => orgSettings(await getDb(), user.accountId));

export const PATCH = consoleRoute(async ({ req, user }) => updateOrgSettings(await getDb(), user, await readBody(req, orgSettingsSchema)), { can: "settings" });
