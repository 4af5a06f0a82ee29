import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { identityView, updateIdentity } from "@/lib/console/identity";
import { identitySettingsSchema } from "@/lib/sso/settings";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Organisation → Identity: single sign-on, SCIM tokens, verified domains. */
export const GET = consoleRoute(async ({ user }) => identityView(await getDb(), user), { can: "settings" });

export const PATCH = consoleRoute(async ({ req, user }) => updateIdentity(await getDb(), user, await readBody(req, identitySettingsSchema)), { can: "settings" });
