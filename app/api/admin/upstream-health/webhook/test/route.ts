import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { testUpstreamWebhook } from "@/lib/console/upstream-health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Admin → Upstreams, "Send test event": one signed `upstream.test` now; answers what the receiver said. */
export const POST = consoleRoute(async ({ user }) => testUpstreamWebhook(await getDb(), user), { admin: true });
