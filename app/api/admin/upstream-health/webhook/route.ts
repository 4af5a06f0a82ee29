import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { setUpstreamWebhook, webhookSettingSchema } from "@/lib/console/upstream-health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PUT = consoleRoute(async ({ req, user }) => setUpstreamWebhook(await getDb(), user, await readBody(req, webhookSettingSchema)), { admin: true });
