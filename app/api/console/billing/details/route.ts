import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { billingDetailsSchema, getBillingDetails, setBillingDetails } from "@/lib/receipts/details";
import { needBilling } from "@/lib/receipts/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The name, address, tax id and email printed on receipts and statements. */
export const GET = consoleRoute(async ({ user }) => {
  needBilling(user);
  return getBillingDetails(await getDb(), user.accountId);
});

export const PUT = consoleRoute(async ({ req, user }) => {
  needBilling(user, "settings");
  return setBillingDetails(await getDb(), user.accountId, await readBody(req, billingDetailsSchema));
});
