import { getDb } from "@/db/client";
import { testUpstream } from "@/lib/console/admin-catalog";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = consoleRoute(async ({ params }) => testUpstream(await getDb(), params.id!), { admin: true });
