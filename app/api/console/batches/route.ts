import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { listConsoleBatches } from "@/lib/console/batches";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) => listConsoleBatches(await getDb(), user, { after: url.searchParams.get("after") ?? undefined }));
