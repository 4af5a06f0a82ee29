import { getDb } from "@/db/client";
import { checkKeyAccess, revokeConsoleKey, updateConsoleKey, updateKeySchema } from "@/lib/console/keys";
import { consoleRoute, readBody } from "@/lib/console/route";
import { can } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PATCH = consoleRoute(async ({ req, user, params }) => {
  const body = await readBody(req, updateKeySchema);
  const db = await getDb();
  await checkKeyAccess(db, user, params.id!, can(user.orgRole, "keys.all"));
  return updateConsoleKey(db, user, params.id!, body);
}, { can: "keys.own" });

/** Revokes: the next request with the key gets 401. */
export const DELETE = consoleRoute(async ({ user, params }) => {
  const db = await getDb();
  await checkKeyAccess(db, user, params.id!, can(user.orgRole, "keys.all"));
  return revokeConsoleKey(db, user, params.id!);
}, { can: "keys.own" });
