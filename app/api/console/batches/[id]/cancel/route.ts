import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { cancelConsoleBatch } from "@/lib/console/batches";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Spends nothing, only stops spending: whoever sees the batch may cancel it (as on the API). */
export const POST = consoleRoute(async ({ user, params }) => cancelConsoleBatch(await getDb(), user, params.id ?? ""));
