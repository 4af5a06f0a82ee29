import { getDb } from "@/db/client";
import { listUsers } from "@/lib/console/admin-users";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(
  async ({ url }) =>
    listUsers(await getDb(), { q: url.searchParams.get("q") ?? undefined, offset: Number(url.searchParams.get("offset")) || 0 }),
  { admin: true },
);
