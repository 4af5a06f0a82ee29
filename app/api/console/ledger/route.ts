import { getDb } from "@/db/client";
import { csvResponse } from "@/lib/console/csv";
import { ledgerCsv, listLedger } from "@/lib/console/ledger";
import { queryInt } from "@/lib/console/query";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** `?before=<id>` pages back; `?format=csv` downloads every row. */
export const GET = consoleRoute(async ({ user, url }) => {
  const db = await getDb();
  if (url.searchParams.get("format") === "csv") return csvResponse("ledger.csv", await ledgerCsv(db, user.accountId));
  const before = queryInt(url, "before", { min: 1 });
  return listLedger(db, user.accountId, { before });
}, { can: "ledger" });
