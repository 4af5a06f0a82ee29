import { getDb } from "@/db/client";
import { createUpstream, createUpstreamSchema, listUpstreams } from "@/lib/console/admin-catalog";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async () => ({ items: await listUpstreams(await getDb()) }), { admin: true });

export const POST = consoleRoute(
  async ({ req, user }) => createUpstream(await getDb(), user, await readBody(req, createUpstreamSchema)),
  { admin: true },
);
