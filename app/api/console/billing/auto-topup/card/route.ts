import { z } from "zod";
import { getDb } from "@/db/client";
import { forgetCard, saveCardReturn, saveCardStart } from "@/lib/console/auto-topup";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const returnSchema = z.object({ sessionId: z.string().max(300).optional() }).strict();

/** `{}` starts Checkout in setup mode (answers `{url}`); `{sessionId}` saves the card of a finished one. */
export const POST = consoleRoute(async ({ req, user }) => {
  const db = await getDb();
  const { sessionId } = await readBody(req, returnSchema);
  return sessionId ? saveCardReturn(db, user, sessionId) : saveCardStart(db, user);
}, { can: "billing" });

/** Forgets the saved card; auto top-up stops. */
export const DELETE = consoleRoute(async ({ user }) => forgetCard(await getDb(), user), { can: "billing" });
