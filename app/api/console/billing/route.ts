import { getDb } from "@/db/client";
import { billingConfig } from "@/lib/console/billing";
import { accountBalance } from "@/lib/console/overview";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => ({ ...billingConfig(), ...(await accountBalance(await getDb(), user.accountId)) }), { can: "billing" });
