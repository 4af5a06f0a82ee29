import { getDb } from "@/db/client";
import { revokeConsoleKey, updateConsoleKey, updateKeySchema } from "@/lib/console/keys";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PATCH = consoleRoute(async ({ req, user, params }) => {
  const body = await readBody(req, updateKeySchema);
  return updateConsoleKey(await getDb(), user, params.id!, body);
});

/** Revokes: the next request with the key gets 401. */
export const DELETE = consoleRoute(async ({ user, params }) => revokeConsoleKey(await getDb(), user, params.id!));
