import { getDb } from "@/db/client";
import { auditWebhook, auditWebhookSchema, setAuditWebhook } from "@/lib/console/audit-export";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The organisation's signed audit-event stream: owners and admins. The secret is shown once. */
export const GET = consoleRoute(async ({ user }) => auditWebhook(await getDb(), user.accountId), { can: "settings" });

export const PUT = consoleRoute(async ({ req, user }) => setAuditWebhook(await getDb(), user, (await readBody(req, auditWebhookSchema)).url), { can: "settings" });
