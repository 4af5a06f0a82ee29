import { z } from "zod";
import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { requestClientAddress } from "@/lib/net/request-address";
import { needBilling } from "@/lib/receipts/routes";
import { redeemForUser } from "@/lib/redeem/redeem";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const schema = z.object({ code: z.string().trim().min(1, "Enter a code.").max(100, "That is not a code.") });

/** Redeems a code for the caller's account: credited once per account; refusals say why. */
export const POST = consoleRoute(async ({ req, user }) => {
  needBilling(user);
  const { code } = await readBody(req, schema);
  return redeemForUser(await getDb(), user, code, requestClientAddress(req.headers));
});
