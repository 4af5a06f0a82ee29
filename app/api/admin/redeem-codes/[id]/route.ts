import { z } from "zod";
import { getDb } from "@/db/client";
import { AppError } from "@/lib/console/errors";
import { consoleRoute, readBody } from "@/lib/console/route";
import { setBatchDisabled } from "@/lib/redeem/batches";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const schema = z.object({ disabled: z.boolean() });

/** Withdraws (or restores) a batch: its codes are refused while disabled. */
export const PATCH = consoleRoute(
  async ({ req, user, params }) => {
    const { disabled } = await readBody(req, schema);
    const b = await setBatchDisabled(await getDb(), params.id!, disabled, { userId: user.id, label: user.email });
    if (!b) throw new AppError("not_found", "No such batch.");
    return { batch: b };
  },
  { admin: true },
);
