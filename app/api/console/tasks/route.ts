import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { listTasks } from "@/lib/console/tasks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) =>
  listTasks(await getDb(), user.accountId, { before: url.searchParams.get("before") ?? undefined }),
);
