import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { needBilling, receiptDownload } from "@/lib/receipts/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Stripe's receipt (302) for a card top-up when Stripe has one, else (or with ?format=pdf) a PDF. */
export const GET = consoleRoute(async ({ user, params, url }) => {
  needBilling(user);
  return receiptDownload(await getDb(), user.accountId, params.id!, url.searchParams.get("format"));
});
