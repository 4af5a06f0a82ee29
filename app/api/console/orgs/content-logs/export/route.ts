import { getDb } from "@/db/client";
import { exportDate, streamDownload } from "@/lib/console/audit-export";
import { consoleRoute } from "@/lib/console/route";
import { exportContentLogs } from "@/lib/content-logs/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The organisation's content logs as JSONL (optional `from`/`to`): owners and admins. */
export const GET = consoleRoute(
  async ({ user, url }) =>
    streamDownload("content-logs.jsonl", "application/x-ndjson", exportContentLogs(await getDb(), user.accountId, { from: exportDate(url.searchParams, "from"), to: exportDate(url.searchParams, "to") })),
  { can: "settings" },
);
