import { getDb } from "@/db/client";
import { overview } from "@/lib/console/overview";
import { consoleRoute } from "@/lib/console/route";
import { memberScope } from "@/lib/console/scope";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => overview(await getDb(), user.accountId, new Date(), memberScope(user)));
