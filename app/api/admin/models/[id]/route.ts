import { getDb } from "@/db/client";
import { updateModel, updateModelSchema } from "@/lib/console/admin-catalog";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PATCH = consoleRoute(
  async ({ req, user, params }) => updateModel(await getDb(), user, params.id!, await readBody(req, updateModelSchema)),
  { admin: true },
);
