import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { dailySpendByModel, parseUsageFilter } from "@/lib/console/usage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) => ({
  items: await dailySpendByModel(await getDb(), user.accountId, parseUsageFilter(url.searchParams)),
}));
