import { getDb } from "@/db/client";
import { updateUser, updateUserSchema } from "@/lib/console/admin-users";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PATCH = consoleRoute(
  async ({ req, user, params }) => updateUser(await getDb(), user, params.id!, await readBody(req, updateUserSchema)),
  { admin: true },
);
