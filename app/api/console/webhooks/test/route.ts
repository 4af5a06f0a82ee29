import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { sendTest, testEventSchema } from "@/lib/console/webhooks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Sends one signed test event (same URL rules as real deliveries) and returns its attempt. */
export const POST = consoleRoute(async ({ req, user }) => sendTest(await getDb(), user.accountId, await readBody(req, testEventSchema)), { can: "webhooks" });
