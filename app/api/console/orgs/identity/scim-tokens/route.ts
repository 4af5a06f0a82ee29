import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { newScimToken } from "@/lib/console/identity";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A SCIM bearer token for the active organisation, shown once. */
export const POST = consoleRoute(async ({ user }) => newScimToken(await getDb(), user), { can: "settings" });
