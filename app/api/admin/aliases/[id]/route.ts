import { getDb } from "@/db/client";
import { deleteAlias } from "@/lib/console/admin-aliases";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = consoleRoute(async ({ user, params }) => deleteAlias(await getDb(), user, params.id!), { admin: true });
