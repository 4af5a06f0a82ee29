import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { needBilling, receiptsFor } from "@/lib/receipts/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Every credit of the caller's account (top-ups, codes, admin credits) with its receipt link. */
export const GET = consoleRoute(async ({ user }) => {
  needBilling(user);
  return receiptsFor(await getDb(), user.accountId);
});
