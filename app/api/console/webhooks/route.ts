import { getDb } from "@/db/client";
import { queryDate } from "@/lib/console/query";
import { consoleRoute } from "@/lib/console/route";
import { listDeliveries } from "@/lib/console/webhooks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) =>
  listDeliveries(await getDb(), user.accountId, { taskId: url.searchParams.get("taskId") ?? undefined, before: queryDate(url, "before")?.toISOString() }),
  { can: "webhooks" },
);
