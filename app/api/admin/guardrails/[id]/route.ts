import { getDb } from "@/db/client";
import { deleteGuardrail, guardrailBodySchema, updateGuardrail } from "@/lib/console/admin-guardrails";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PUT = consoleRoute(async ({ req, user, params }) => updateGuardrail(await getDb(), user, params.id!, await readBody(req, guardrailBodySchema)), { admin: true });

export const DELETE = consoleRoute(async ({ user, params }) => deleteGuardrail(await getDb(), user, params.id!), { admin: true });
