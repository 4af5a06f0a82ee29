import { getDb } from "@/db/client";
import { AppError } from "@/lib/console/errors";
import { consoleRoute } from "@/lib/console/route";
import { memberScope } from "@/lib/console/scope";
import { requestUsage } from "@/lib/playground/request-usage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One of the account's request-log rows by request id (404 until the gateway has settled it). */
export const GET = consoleRoute(async ({ user, params }) => {
  const row = await requestUsage(await getDb(), user.accountId, params.id ?? "", memberScope(user));
  if (!row) throw new AppError("not_found", "No such request yet.");
  return row;
});
