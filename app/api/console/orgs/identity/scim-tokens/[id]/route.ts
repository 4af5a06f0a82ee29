import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { dropScimToken } from "@/lib/console/identity";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = consoleRoute(async ({ params, user }) => dropScimToken(await getDb(), user, params.id ?? ""), { can: "settings" });
