import { getDb } from "@/db/client";
import { responsesStorage, responsesStorageSchema, setResponsesStorage } from "@/lib/console/responses-storage";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => responsesStorage(await getDb(), user.accountId), { can: "billing" });

export const PUT = consoleRoute(async ({ req, user }) => {
  const body = await readBody(req, responsesStorageSchema);
  return setResponsesStorage(await getDb(), user.accountId, body.storeResponses);
}, { can: "settings" });
