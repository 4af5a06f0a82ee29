import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { batchInput, batchSchema } from "@/lib/redeem/admin-input";
import { createBatch, listBatches } from "@/lib/redeem/batches";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async () => ({ batches: await listBatches(await getDb()) }), { admin: true });

/** Creates a batch; the codes come back once here (and later from the batch's CSV export). */
export const POST = consoleRoute(
  async ({ req, user }) => {
    const input = batchInput(await readBody(req, batchSchema), { userId: user.id, label: user.email });
    const { batch, codes } = await createBatch(await getDb(), input);
    return { batch, codes };
  },
  { admin: true },
);
