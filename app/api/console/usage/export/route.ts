import { getDb } from "@/db/client";
import { csvResponse } from "@/lib/console/csv";
import { consoleRoute } from "@/lib/console/route";
import { scopedUsageFilter } from "@/lib/console/scope";
import { requestsCsv } from "@/lib/console/usage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user, url }) =>
  csvResponse("usage.csv", await requestsCsv(await getDb(), user.accountId, scopedUsageFilter(user, url.searchParams))),
);
