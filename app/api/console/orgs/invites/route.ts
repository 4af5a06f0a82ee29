import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { emailAvailable } from "@/lib/email";
import { createOrgInvite, listInvites } from "@/lib/orgs/invites";
import { capFromUsd, inviteSchema } from "@/lib/orgs/manage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(async ({ user }) => ({ items: await listInvites(await getDb(), user.accountId), emailAvailable: emailAvailable() }), { can: "members" });

/** Invites by email; the answer carries the link only when no email was sent. */
export const POST = consoleRoute(async ({ req, user }) => {
  const body = await readBody(req, inviteSchema);
  return { invite: await createOrgInvite(await getDb(), user, { email: body.email, role: body.role, monthlyCapMicroUsd: capFromUsd(body.monthlyCapUsd) }) };
}, { can: "members" });
