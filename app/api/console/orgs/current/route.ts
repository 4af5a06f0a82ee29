import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { deleteOrg, orgSettings, orgSettingsSchema, updateOrgSettings } from "@/lib/orgs/manage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => orgSettings(await getDb(), user.accountId));

export const PATCH = consoleRoute(async ({ req, user }) => updateOrgSettings(await getDb(), user, await readBody(req, orgSettingsSchema)), { can: "settings" });

/** Deletes the active organisation (owners; refused while it holds money; never a personal one). */
export const DELETE = consoleRoute(async ({ user }) => deleteOrg(await getDb(), user), { can: "ownership" });
