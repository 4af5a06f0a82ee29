import { getDb } from "@/db/client";
import { listAudit } from "@/lib/console/audit";
import { queryInt } from "@/lib/console/query";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The organisation's audit log, newest first: owners and admins. */
export const GET = consoleRoute(
  async ({ url, user }) => {
    const q = (k: string) => url.searchParams.get(k)?.trim().slice(0, 200) || undefined;
    return listAudit(await getDb(), { accountId: user.accountId, before: queryInt(url, "before", { min: 1 }), actor: q("actor"), action: q("action"), target: q("target") });
  },
  { can: "settings" },
);
