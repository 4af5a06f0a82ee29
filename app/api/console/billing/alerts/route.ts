import { getDb } from "@/db/client";
import { alertSettingsSchema, getAlertSettings, setAlertSettings } from "@/lib/alerts/settings";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Alert settings and recent alerts of the active organisation (owners, admins, billing). */
export const GET = consoleRoute(async ({ user }) => getAlertSettings(await getDb(), user.accountId), { can: "billing" });

export const PUT = consoleRoute(async ({ req, user }) => setAlertSettings(await getDb(), user.accountId, await readBody(req, alertSettingsSchema)), { can: "billing" });
