import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { upstreamHealthView } from "@/lib/console/upstream-health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async () => upstreamHealthView(await getDb()), { admin: true });
