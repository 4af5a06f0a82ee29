import { getDb } from "@/db/client";
import { checkKeyAccess, rollConsoleKey, rollKeySchema } from "@/lib/console/keys";
import { consoleRoute, readBody } from "@/lib/console/route";
import { can } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = consoleRoute(async ({ req, user, params }) => {
  const body = await readBody(req, rollKeySchema);
  const db = await getDb();
  await checkKeyAccess(db, user, params.id!, can(user.orgRole, "keys.all"));
  return { key: await rollConsoleKey(db, user, params.id!, body.graceSeconds) };
}, { can: "keys.own" });
