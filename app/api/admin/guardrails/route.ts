import { getDb } from "@/db/client";
import { createGuardrail, guardrailBodySchema, listGuardrails } from "@/lib/console/admin-guardrails";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Admin → Guardrails: the config file's (read-only) and the stored ones. */
export const GET = consoleRoute(async () => ({ items: await listGuardrails(await getDb()) }), { admin: true });

export const POST = consoleRoute(async ({ req, user }) => createGuardrail(await getDb(), user, await readBody(req, guardrailBodySchema)), { admin: true });
