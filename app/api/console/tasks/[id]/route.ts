import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { memberScope } from "@/lib/console/scope";
import { taskRequestId } from "@/lib/console/tasks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The request that submitted one of the caller's tasks, for the request inspector (404 for anyone else's). */
export const GET = consoleRoute(async ({ user, params }) => taskRequestId(await getDb(), user.accountId, params.id ?? "", memberScope(user)));
