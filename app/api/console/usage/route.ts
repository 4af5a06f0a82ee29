import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { scopedUsageFilter } from "@/lib/console/scope";
import { listRequests, usageTotals } from "@/lib/console/usage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) => {
  const db = await getDb();
  const filter = scopedUsageFilter(user, url.searchParams);
  const [page, totals] = await Promise.all([listRequests(db, user.accountId, filter), filter.before ? null : usageTotals(db, user.accountId, filter)]);
  return { ...page, totals };
});
