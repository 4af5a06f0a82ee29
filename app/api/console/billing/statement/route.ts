import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { needBilling, statementDownload } from "@/lib/receipts/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** ?month=YYYY-MM&format=csv|pdf: the month's balance movement and spend by model. */
export const GET = consoleRoute(async ({ user, url }) => {
  needBilling(user);
  return statementDownload(await getDb(), user.accountId, url.searchParams.get("month"), url.searchParams.get("format"));
});
