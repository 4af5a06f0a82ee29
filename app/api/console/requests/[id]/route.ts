import { getDb } from "@/db/client";
import { requestDetail } from "@/lib/console/request-detail";
import { consoleRoute } from "@/lib/console/route";
import { memberScope } from "@/lib/console/scope";
import { can } from "@/lib/orgs/roles";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One request of the caller's account for the request inspector (404 for anyone else's). */
export const GET = consoleRoute(async ({ user, params }) => requestDetail(await getDb(), user.accountId, params.id ?? "", {
    memberId: memberScope(user),
    ledger: can(user.orgRole, "ledger"),
    webhooks: can(user.orgRole, "webhooks"),
  }),
);
