/**
 * Invitations to an organisation (decision 0018). A row per invite, so owners can list and
 * revoke them; the link carries `oinv_<row id>.<HMAC-SHA256(session secret, row id)>`, so a link
 * cannot be made up for a row id seen elsewhere. Accepting is one conditional UPDATE
 * (not accepted, not revoked, not expired), so a link works once; only a user signed in with the
 * invited email may accept, and the membership is inserted in the same transaction.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, memberships, orgInvites, users, type OrgRole } from "../../db/schema";
import { authSecret } from "../auth/secret";
import { countEmailSend } from "../auth/rate-limit";
import type { InviteRefusal } from "../auth/invites";
import { normalizeEmail } from "../auth/users";
import { AppError } from "../app-error";
import { recordAudit } from "../audit/record";
import { renderEmail, sendEmail, emailAvailable } from "../email";
import { env } from "../env";
import { randomBase62 } from "../ids";
import { logger } from "../logger";
import { ROLE_LABELS } from "./roles";
import type { InviteView } from "../views";
import type { Result } from "../result";
export type { InviteView };

export const ORG_INVITE_DAYS = 7;
const PREFIX = "oinv_";

function sign(id: string): string {
  return createHmac("sha256", authSecret()).update(`org-invite:${id}`).digest("base64url");
}

export function inviteToken(id: string): string {
  return `${PREFIX}${id}.${sign(id)}`;
}

/** The row id a token names, or null when it is not a token this gateway signed. */
export function inviteIdFromToken(token: string | null | undefined): string | null {
  if (!token || token.length > 200 || !token.startsWith(PREFIX)) return null;
  const [id, sig] = token.slice(PREFIX.length).split(".");
  if (!id || !sig || !/^[A-Za-z0-9]{1,64}$/.test(id)) return null;
  const want = Buffer.from(sign(id));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got) ? id : null;
}

export async function listInvites(db: DbOrTx, accountId: string, now = new Date()): Promise<InviteView[]> {
  const rows = await db.select().from(orgInvites).where(eq(orgInvites.accountId, accountId)).orderBy(desc(orgInvites.createdAt)).limit(200);
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    monthlyCapMicroUsd: r.monthlyCapMicroUsd,
    expiresAt: r.expiresAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    state: r.acceptedAt ? "accepted" : r.revokedAt ? "revoked" : r.expiresAt <= now ? "expired" : "pending",
  }));
}

export interface Actor {
  id: string;
  email: string;
  accountId: string;
  orgRole: OrgRole;
}

/**
 * Creates an invite and emails its link (or, where this gateway sends no email, returns the link
 * for the console to show). Only owners invite owners.
 */
export async function createOrgInvite(db: DB, actor: Actor, input: { email: string; role: OrgRole; monthlyCapMicroUsd: number | null }) {
  const email = normalizeEmail(input.email);
  if (input.role === "owner" && actor.orgRole !== "owner") throw new AppError("forbidden", "Only an owner can invite another owner.", { field: "role" });
  const [member] = await db
    .select({ id: users.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.accountId, actor.accountId), eq(users.email, email)));
  if (member) throw new AppError("conflict", `${email} is already a member of this organisation.`, { field: "email" });
  await countEmailSend(actor.id, [email]);
  const id = randomBase62(24);
  const expiresAt = new Date(Date.now() + ORG_INVITE_DAYS * 86_400_000);
  await db.transaction(async (tx) => {
    await tx.insert(orgInvites).values({ id, accountId: actor.accountId, email, role: input.role, monthlyCapMicroUsd: input.monthlyCapMicroUsd, invitedByUserId: actor.id, expiresAt });
    await recordAudit(tx, { actorUserId: actor.id, actor: actor.email, action: "org.invite", targetType: "org_invite", targetId: id, accountId: actor.accountId, details: { accountId: actor.accountId, role: input.role, before: null, after: { role: input.role } } });
  });
  const url = joinUrl(id);
  const [org] = await db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, actor.accountId));
  let emailed = false;
  if (emailAvailable()) {
    try {
      const r = await sendEmail(
        renderEmail(email, "org_invite", {
          subject: `${actor.email} invited you to ${org?.name ?? "an organisation"} on Generation Gateway`,
          paragraphs: [
            `${actor.email} invited you to join the organisation "${org?.name ?? ""}" on Generation Gateway as ${ROLE_LABELS[input.role].toLowerCase()}.`,
            `The link works once, for ${ORG_INVITE_DAYS} days. Sign in (or create an account) with ${email} to accept.`,
          ],
          action: { label: "Accept the invitation", url },
          footer: "If you did not expect this, ignore this email.",
        }),
      );
      emailed = r.delivered === "smtp";
    } catch (err) {
      logger().warn({ err, inviteId: id }, "organisation invite email not sent");
    }
  }
  // Where no email leaves this gateway (or it failed), the inviter passes the link on by hand.
  return { id, email, role: input.role, expiresAt: expiresAt.toISOString(), emailed, url: emailed ? null : url };
}

/** The accept page's link. It opens sign-up (SIGNUP=invite) only while it is pending and its inviter is an admin (signupTicket). */
function joinUrl(id: string): string {
  const u = new URL("/join", env().publicBaseUrl);
  u.searchParams.set("token", inviteToken(id));
  return u.toString();
}

export async function revokeOrgInvite(db: DB, actor: Actor, inviteId: string) {
  const r = await db
    .update(orgInvites)
    .set({ revokedAt: new Date() })
    .where(and(eq(orgInvites.id, inviteId), eq(orgInvites.accountId, actor.accountId), isNull(orgInvites.acceptedAt), isNull(orgInvites.revokedAt)))
    .returning({ id: orgInvites.id, email: orgInvites.email, role: orgInvites.role });
  if (!r.length) throw new AppError("not_found", "No such pending invite.");
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action: "org.invite_revoke", targetType: "org_invite", targetId: inviteId, accountId: actor.accountId, details: { before: { email: r[0]!.email, role: r[0]!.role, revoked: false }, after: { revoked: true } } });
  return { id: inviteId };
}

/** What the accept page shows before the user accepts: the organisation and role (or why not). */
export async function describeInvite(db: DbOrTx, token: string): Promise<Result<{ orgName: string; email: string; role: OrgRole; opensSignup: boolean }, string>> {
  const id = inviteIdFromToken(token);
  if (!id) return { ok: false, error: "This invitation link is not valid." };
  const [row] = await db
    .select({ invite: orgInvites, orgName: accounts.name, inviterRole: users.role, inviterDisabled: users.disabled })
    .from(orgInvites)
    .innerJoin(accounts, eq(accounts.id, orgInvites.accountId))
    .leftJoin(users, eq(users.id, orgInvites.invitedByUserId))
    .where(eq(orgInvites.id, id));
  if (!row) return { ok: false, error: "This invitation link is not valid." };
  const i = row.invite;
  if (i.acceptedAt) return { ok: false, error: "This invitation has already been used." };
  if (i.revokedAt) return { ok: false, error: "This invitation was withdrawn. Ask for a new one." };
  if (i.expiresAt <= new Date()) return { ok: false, error: "This invitation has expired. Ask for a new one." };
  // Under SIGNUP=invite only an admin's invitation lets a new address sign up (issue 32, item 10).
  const opensSignup = env().SIGNUP === "invite" && row.inviterRole === "admin" && !row.inviterDisabled;
  return { ok: true, value: { orgName: row.orgName, email: i.email, role: i.role, opensSignup } };
}

/**
 * SIGNUP=invite with an organisation invitation's token: a sign-up ticket for its address while
 * the invitation is pending (not withdrawn, accepted or expired) and was made by a gateway admin.
 * Anyone else's invitation is not: sign-up stays the admins' decision.
 */
export async function signupTicket(db: DbOrTx, token: string, email: string): Promise<Result<void, InviteRefusal>> {
  const d = await describeInvite(db, token);
  if (!d.ok) return { ok: false, error: { message: d.error, field: "invite" } };
  if (!d.value.opensSignup) return { ok: false, error: { message: "Sign-up on this gateway is by an administrator's invitation. Ask an administrator for an invite link.", field: "invite" } };
  if (d.value.email !== normalizeEmail(email)) return { ok: false, error: { message: "This invite is for another email address.", field: "email" } };
  return { ok: true, value: undefined };
}

/** Accepts for the signed-in user; returns the organisation joined. */
export async function acceptOrgInvite(db: DB, user: { id: string; email: string }, token: string): Promise<{ accountId: string; role: OrgRole }> {
  const id = inviteIdFromToken(token);
  if (!id) throw new AppError("not_found", "This invitation link is not valid.");
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(orgInvites).where(eq(orgInvites.id, id));
    if (!row) throw new AppError("not_found", "This invitation link is not valid.");
    if (row.email !== normalizeEmail(user.email)) {
      throw new AppError("forbidden", `This invitation is for ${row.email}. Sign in with that address to accept it.`);
    }
    const taken = await tx
      .update(orgInvites)
      .set({ acceptedAt: new Date(), acceptedByUserId: user.id })
      .where(and(eq(orgInvites.id, id), isNull(orgInvites.acceptedAt), isNull(orgInvites.revokedAt), gt(orgInvites.expiresAt, sql`now()`)))
      .returning({ accountId: orgInvites.accountId });
    if (!taken.length) {
      const d = await describeInvite(tx, token);
      throw new AppError("conflict", d.ok ? "This invitation cannot be used." : d.error);
    }
    const inserted = await tx
      .insert(memberships)
      .values({ accountId: row.accountId, userId: user.id, role: row.role, monthlyCapMicroUsd: row.monthlyCapMicroUsd, invitedByUserId: row.invitedByUserId })
      .onConflictDoNothing()
      .returning({ role: memberships.role });
    if (!inserted.length) throw new AppError("conflict", "You are already a member of this organisation.");
    await recordAudit(tx, { actorUserId: user.id, actor: user.email, action: "org.join", targetType: "account", targetId: row.accountId, accountId: row.accountId, details: { role: row.role, inviteId: id, before: null, after: { member: user.email, role: row.role } } });
    return { accountId: row.accountId, role: row.role };
  });
}
