import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { scopedUsageFilter } from "@/lib/console/scope";
import { dailySpendByModel } from "@/lib/console/usage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) => ({
  items: await dailySpendByModel(await getDb(), user.accountId, scopedUsageFilter(user, url.searchParams)),
}));
