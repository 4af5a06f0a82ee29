import { getDb } from "@/db/client";
import { createModel, createModelSchema, deprecatedModelCallers, listModels } from "@/lib/console/admin-catalog";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(
  async () => {
    const db = await getDb();
    return { items: await listModels(db), deprecatedCallers: await deprecatedModelCallers(db) };
  },
  { admin: true },
);

export const POST = consoleRoute(
  async ({ req, user }) => createModel(await getDb(), user, await readBody(req, createModelSchema)),
  { admin: true },
);
