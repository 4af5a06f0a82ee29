import { getDb } from "@/db/client";
import { updateUpstream, updateUpstreamSchema } from "@/lib/console/admin-catalog";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PATCH = consoleRoute(
  async ({ req, user, params }) => updateUpstream(await getDb(), user, params.id!, await readBody(req, updateUpstreamSchema)),
  { admin: true },
);
