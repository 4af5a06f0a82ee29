import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { contentLogSettings, contentLogSettingsSchema, purgeContentLogs, setContentLogSettings } from "@/lib/content-logs/settings";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The organisation's content logging (docs/content-logs.md): owners and admins. */
export const GET = consoleRoute(async ({ user }) => contentLogSettings(await getDb(), user.accountId), { can: "settings" });

export const PUT = consoleRoute(async ({ req, user }) => setContentLogSettings(await getDb(), user, await readBody(req, contentLogSettingsSchema)), { can: "settings" });

/** Deletes every content log of the organisation now. */
export const DELETE = consoleRoute(async ({ user }) => purgeContentLogs(await getDb(), user), { can: "settings" });
