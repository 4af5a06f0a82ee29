import { getDb } from "@/db/client";
import { checkoutStatus } from "@/lib/console/billing";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, params }) => checkoutStatus(await getDb(), user, params.id!), { can: "billing" });
