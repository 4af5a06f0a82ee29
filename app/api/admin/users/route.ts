import { getDb } from "@/db/client";
import { listUsers } from "@/lib/console/admin-users";
import { queryInt } from "@/lib/console/query";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(
  async ({ url }) =>
    listUsers(await getDb(), { q: url.searchParams.get("q") ?? undefined, offset: queryInt(url, "offset", { max: 1_000_000_000 }) ?? 0 }),
  { admin: true },
);
