import { getDb } from "@/db/client";
import { listAudit } from "@/lib/console/audit";
import { queryInt } from "@/lib/console/query";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(
  async ({ url }) => {
    const q = (k: string) => url.searchParams.get(k)?.trim().slice(0, 200) || undefined;
    return listAudit(await getDb(), { before: queryInt(url, "before", { min: 1 }), actor: q("actor"), action: q("action"), target: q("target") });
  },
  { admin: true },
);
