import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { deleteBudget } from "@/lib/orgs/budgets";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = consoleRoute(async ({ user, params }) => deleteBudget(await getDb(), user, params.id!), { can: "billing" });
