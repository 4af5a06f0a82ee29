import { getDb } from "@/db/client";
import { createModel, createModelSchema, listModels } from "@/lib/console/admin-catalog";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async () => ({ items: await listModels(await getDb()) }), { admin: true });

export const POST = consoleRoute(
  async ({ req, user }) => createModel(await getDb(), user, await readBody(req, createModelSchema)),
  { admin: true },
);
