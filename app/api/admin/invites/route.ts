import { z } from "zod";
import { getDb } from "@/db/client";
import { createInvite, MAX_INVITE_DAYS } from "@/lib/auth/invites";
import { recordAudit } from "@/lib/console/audit";
import { consoleRoute, readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const schema = z.object({
  email: z.union([z.literal(""), z.string().trim().max(254).email("Enter a valid email address, or leave it empty for anyone.")]).optional(),
  days: z.coerce.number().int("Whole days.").min(1).max(MAX_INVITE_DAYS).default(7),
});

/** SIGNUP=invite: a one-use sign-up link, optionally for one email. The link is shown once. */
export const POST = consoleRoute(
  async ({ req, user }) => {
    const body = await readBody(req, schema);
    const inv = createInvite({ email: body.email || null, days: body.days });
    await recordAudit(await getDb(), { actorUserId: user.id, actor: user.email, action: "invite.create", targetType: "invite", targetId: inv.nonce, details: { email: body.email || null, expiresAt: inv.expiresAt } });
    return { url: inv.url, expiresAt: inv.expiresAt, email: body.email || null };
  },
  { admin: true },
);
