import { getDb } from "@/db/client";
import { AppError } from "@/lib/console/errors";
import { consoleRoute } from "@/lib/console/route";
import { readContentLog } from "@/lib/content-logs/store";
import { can } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * One request's content log for the request inspector: owners and admins see every request's,
 * anyone else only their own requests' (another organisation's, or none: 404).
 */
export const GET = consoleRoute(async ({ user, params }) => {
  const log = await readContentLog(await getDb(), user.accountId, params.id ?? "", can(user.orgRole, "settings") ? undefined : user.id);
  if (!log) throw new AppError("not_found", "No content log for this request.");
  return log;
});
