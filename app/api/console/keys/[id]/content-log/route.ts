import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { keyContentLogSchema, setKeyContentLog } from "@/lib/content-logs/settings";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Narrows the organisation's content logging for one key (`mode`: off, metadata, full or null = the organisation's). */
export const PUT = consoleRoute(async ({ req, user, params }) => setKeyContentLog(await getDb(), user, params.id ?? "", (await readBody(req, keyContentLogSchema)).mode), { can: "settings" });
