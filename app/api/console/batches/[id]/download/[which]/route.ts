import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { downloadBatchFile } from "@/lib/console/batches";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** `which`: results (succeeded lines) or errors (the others), as the batch's own API shapes them. */
export const GET = consoleRoute(async ({ user, params }) => downloadBatchFile(await getDb(), user, params.id ?? "", params.which ?? ""));
