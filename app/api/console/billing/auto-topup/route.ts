import { getDb } from "@/db/client";
import { autoTopupSchema, getAutoTopup, putAutoTopup } from "@/lib/console/auto-topup";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The saved card, "below X add Y", and the latest attempts. */
export const GET = consoleRoute(async ({ user }) => getAutoTopup(await getDb(), user), { can: "billing" });

/** `{enabled: true, thresholdUsd, amountUsd}` or `{enabled: false}`. */
export const PUT = consoleRoute(async ({ req, user }) => putAutoTopup(await getDb(), user, await readBody(req, autoTopupSchema)), { can: "billing" });
