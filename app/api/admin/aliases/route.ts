import { getDb } from "@/db/client";
import { listAliases, saveAlias, saveAliasSchema } from "@/lib/console/admin-aliases";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async () => ({ items: await listAliases(await getDb()) }), { admin: true });

export const POST = consoleRoute(async ({ req, user }) => saveAlias(await getDb(), user, await readBody(req, saveAliasSchema)), { admin: true });
