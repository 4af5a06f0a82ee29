import { getDb } from "@/db/client";
import { setAccountLimits, accountLimitsSchema } from "@/lib/console/admin-users";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PUT = consoleRoute(async ({ req, user, params }) => setAccountLimits(await getDb(), user, params.id!, await readBody(req, accountLimitsSchema)), { admin: true });
