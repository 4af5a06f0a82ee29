import { getDb } from "@/db/client";
import { csvResponse } from "@/lib/console/csv";
import { AppError } from "@/lib/console/errors";
import { consoleRoute } from "@/lib/console/route";
import { batchCsv } from "@/lib/redeem/batches";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The batch's codes as CSV, with each code's uses so far. */
export const GET = consoleRoute(
  async ({ params }) => {
    const csv = await batchCsv(await getDb(), params.id!);
    if (csv === null) throw new AppError("not_found", "No such batch.");
    return csvResponse(`redeem-codes-${params.id}.csv`, csv);
  },
  { admin: true },
);
