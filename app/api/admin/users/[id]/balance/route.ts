import { getDb } from "@/db/client";
import { adjustBalance, adjustBalanceSchema } from "@/lib/console/admin-users";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Admin credit or debit with a note; a ledger row and an audit row. */
export const POST = consoleRoute(
  async ({ req, user, params }) => adjustBalance(await getDb(), user, params.id!, await readBody(req, adjustBalanceSchema)),
  { admin: true },
);
