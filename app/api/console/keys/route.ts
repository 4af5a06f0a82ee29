import { getDb } from "@/db/client";
import { createConsoleKey, createKeySchema, listKeys } from "@/lib/console/keys";
import { consoleRoute, readBody } from "@/lib/console/route";
import { can } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(
  async ({ user }) => ({ items: await listKeys(await getDb(), user.accountId, new Date(), can(user.orgRole, "keys.all") ? undefined : user.id) }),
  { can: "keys.own" },
);

/** The only answer that ever carries a full key (besides a roll's). */
export const POST = consoleRoute(async ({ req, user }) => {
  const body = await readBody(req, createKeySchema);
  return { key: await createConsoleKey(await getDb(), user, body) };
}, { can: "keys.own" });
