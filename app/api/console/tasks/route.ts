import { getDb } from "@/db/client";
import { queryDate } from "@/lib/console/query";
import { consoleRoute } from "@/lib/console/route";
import { memberScope } from "@/lib/console/scope";
import { listTasks } from "@/lib/console/tasks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) =>
  listTasks(await getDb(), user.accountId, { before: queryDate(url, "before")?.toISOString(), memberId: memberScope(user) }),
);
