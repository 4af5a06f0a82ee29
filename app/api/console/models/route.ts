import { getDb } from "@/db/client";
import { availableModels } from "@/lib/console/models";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => ({ items: await availableModels(await getDb(), user.accountId) }));
