import { getDb } from "@/db/client";
import { auditExportResponse } from "@/lib/console/audit-export";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The organisation's audit log as CSV or JSONL (`format`, optional `from`/`to`): owners and admins. */
export const GET = consoleRoute(async ({ url, user }) => auditExportResponse(await getDb(), url.searchParams, user.accountId), { can: "settings" });
