import { getDb } from "@/db/client";
import { rollConsoleKey, rollKeySchema } from "@/lib/console/keys";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = consoleRoute(async ({ req, user, params }) => {
  const body = await readBody(req, rollKeySchema);
  return { key: await rollConsoleKey(await getDb(), user, params.id!, body.graceSeconds) };
});
