import { getDb } from "@/db/client";
import { checkoutSchema, startCheckout } from "@/lib/console/billing";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Starts a Stripe Checkout Session; the browser then goes to its URL. */
export const POST = consoleRoute(async ({ req, user }) => {
  const { amountCents } = await readBody(req, checkoutSchema);
  return startCheckout(await getDb(), user, amountCents);
}, { can: "billing" });
