import { getDb } from "@/db/client";
import { accountBalance } from "@/lib/console/overview";
import { consoleRoute } from "@/lib/console/route";
import { env } from "@/lib/env";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => ({
  user,
  account: await accountBalance(await getDb(), user.accountId),
  publicBaseUrl: env().publicBaseUrl,
}));
