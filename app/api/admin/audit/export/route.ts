import { getDb } from "@/db/client";
import { auditExportResponse } from "@/lib/console/audit-export";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Every audit event of the gateway as CSV or JSONL: gateway admins. */
export const GET = consoleRoute(async ({ url }) => auditExportResponse(await getDb(), url.searchParams, null), { admin: true });
