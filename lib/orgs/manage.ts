/**
 * Organisations and their members as the console changes them: create, settings, roles,
 * monthly caps, removal. Every function is scoped to the actor's active organisation; rules
 * about owners are here (an organisation always keeps an owner; only owners make or unmake
 * owners; a personal organisation's owner stays).
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, apiKeys, memberships, orgInvites, ORG_ROLES, users } from "../../db/schema";
import { parseUsd } from "../billing/money";
import { auditDiff, recordAudit } from "../audit/record";
import { AppError } from "../app-error";
import { waitForSpendable } from "../billing/admin-debit";
import { detachCard, forgetCardOfLeaver, removeCard } from "../billing/auto-topup";
import { expireOpenCheckouts, stripePayments } from "../billing/stripe";
import { askLeasesBack } from "../billing/text-lease";
import { emailAvailable } from "../email";
import { notifyInvalidation } from "../invalidation";
import { newId } from "../ids";
import type { Actor } from "./invites";
import { can } from "./roles";
import type { MemberView } from "../views";
export type { MemberView };

export const orgNameSchema = z.string().trim().min(1, "Give the organisation a name.").max(100, "Use at most 100 characters.");

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const orgSettingsSchema = z.object({
  name: orgNameSchema.optional(),
  timeZone: z.string().max(64).refine(validTimeZone, "Use an IANA time zone such as Europe/Berlin or UTC.").optional(),
  billingName: z.string().trim().max(200).optional(),
  billingEmail: z.union([z.literal(""), z.string().trim().max(254).email("Enter a valid email address.")]).optional(),
  billingAddress: z.string().trim().max(1000).optional(),
  billingTaxId: z.string().trim().max(100).optional(),
});

const usdOrEmpty = z
  .union([z.literal(""), z.null(), z.string().trim().refine((s) => parseUsd(s) !== null, "Enter a dollar amount such as 25 or 0.50.")])
  .optional();

export const memberUpdateSchema = z.object({
  role: z.enum(ORG_ROLES).optional(),
  /** Dollars; "" or null = no cap. */
  monthlyCapUsd: usdOrEmpty,
});

export const inviteSchema = z.object({
  email: z.string().trim().max(254).email("Enter a valid email address."),
  role: z.enum(ORG_ROLES).default("member"),
  monthlyCapUsd: usdOrEmpty,
});

export const capFromUsd = (v: string | null | undefined): number | null => (v ? parseUsd(v) : null);

/** Organisations a user may belong to. */
export const MAX_ORGS_PER_USER = 50;
/**
 * Organisations a user whose email is not verified may create (deleted ones count): enough to
 * try the product, too few to farm per-organisation offers. Verifying lifts it. Not applied
 * where the gateway sends no email, since nobody could verify there. Decision 0039.
 */
export const UNVERIFIED_ORG_LIMIT = 3;

/**
 * Creates an organisation owned by `user`. The user's row is locked while the limits are
 * checked, so parallel creations by one user are counted one after another.
 */
export async function createOrg(db: DB, user: { id: string; email: string }, name: string) {
  const id = newId("account");
  await db.transaction(async (tx) => {
    const [me] = await tx.select({ verified: users.emailVerified, role: users.role }).from(users).where(eq(users.id, user.id)).for("update");
    if (!me) throw new AppError("not_found", "No such user.");
    const [{ n }] = (await tx.select({ n: sql<number>`count(*)::int` }).from(memberships).where(eq(memberships.userId, user.id))) as [{ n: number }];
    if (n >= MAX_ORGS_PER_USER) throw new AppError("conflict", `At most ${MAX_ORGS_PER_USER} organisations per user.`);
    if (!me.verified && me.role !== "admin" && emailAvailable()) {
      const [{ made }] = (await tx.select({ made: sql<number>`count(*)::int` }).from(accounts).where(eq(accounts.createdByUserId, user.id))) as [{ made: number }];
      if (made >= UNVERIFIED_ORG_LIMIT) {
        throw new AppError("forbidden", `Verify your email address to create more than ${UNVERIFIED_ORG_LIMIT} organisations: open the link we emailed you, or send a new one from Billing.`);
      }
    }
    await tx.insert(accounts).values({ id, name, personal: false, createdByUserId: user.id });
    await tx.insert(memberships).values({ accountId: id, userId: user.id, role: "owner" });
    await recordAudit(tx, { actorUserId: user.id, actor: user.email, action: "org.create", targetType: "account", targetId: id, accountId: id, details: { name, before: null, after: { name } } });
  });
  return { id, name };
}

export async function orgSettings(db: DbOrTx, accountId: string) {
  const [a] = await db
    .select({
      id: accounts.id,
      name: accounts.name,
      personal: accounts.personal,
      timeZone: accounts.timeZone,
      billingName: accounts.billingName,
      billingEmail: accounts.billingEmail,
      billingAddress: accounts.billingAddress,
      billingTaxId: accounts.billingTaxId,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!a) throw new AppError("not_found", "No such organisation.");
  return a;
}

export async function updateOrgSettings(db: DB, actor: Actor, body: z.infer<typeof orgSettingsSchema>) {
  const set: Partial<typeof accounts.$inferInsert> = {};
  if (body.name !== undefined) set.name = body.name;
  if (body.timeZone !== undefined) {
    // Caps count months in this zone inside the database: it must know the name too.
    const known = (await db.execute(sql`select count(*)::int as n from pg_timezone_names where name = ${body.timeZone}`)) as unknown as { rows: { n: number }[] };
    if (!known.rows[0]?.n) throw new AppError("invalid_request", "timeZone: this database does not know that time zone.", { field: "timeZone" });
    set.timeZone = body.timeZone;
  }
  for (const k of ["billingName", "billingEmail", "billingAddress", "billingTaxId"] as const) if (body[k] !== undefined) set[k] = body[k] || null;
  if (!Object.keys(set).length) throw new AppError("invalid_request", "Nothing to change.");
  const before = await orgSettings(db, actor.accountId);
  await db.update(accounts).set(set).where(eq(accounts.id, actor.accountId));
  await recordAudit(db, { accountId: actor.accountId, actorUserId: actor.id, actor: actor.email, action: "org.update", targetType: "account", targetId: actor.accountId, details: { fields: Object.keys(set), ...auditDiff(before, set) } });
  return orgSettings(db, actor.accountId);
}

/** The month caps count, as `YYYY-MM` in the organisation's time zone (the same expression the database uses). */
export const CURRENT_MONTH_SQL = (tz: unknown) => sql`to_char(now() at time zone ${tz}, 'YYYY-MM')`;

/** `onlyUserId`: just that member (the header asks every 15 s; a big organisation is not read whole). */
export async function listMembers(db: DbOrTx, accountId: string, onlyUserId?: string): Promise<MemberView[]> {
  const rows = await db
    .select({
      userId: memberships.userId,
      email: users.email,
      name: users.name,
      role: memberships.role,
      cap: memberships.monthlyCapMicroUsd,
      spent: sql<string>`case when ${memberships.capMonth} = ${CURRENT_MONTH_SQL(accounts.timeZone)} then ${memberships.monthSpentMicroUsd} else 0 end`,
      held: memberships.heldMicroUsd,
      keys: sql<number>`(select count(*)::int from ${apiKeys} where ${apiKeys.accountId} = ${memberships.accountId} and ${apiKeys.createdByUserId} = ${memberships.userId} and ${apiKeys.revokedAt} is null and not ${apiKeys.playground})`,
      createdAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(accounts, eq(accounts.id, memberships.accountId))
    .where(and(eq(memberships.accountId, accountId), onlyUserId ? eq(memberships.userId, onlyUserId) : undefined))
    .orderBy(asc(memberships.createdAt));
  return rows.map((r) => ({
    userId: r.userId,
    email: r.email,
    name: r.name,
    role: r.role,
    monthlyCapMicroUsd: r.cap,
    monthSpentMicroUsd: Number(r.spent),
    heldMicroUsd: Math.max(0, r.held),
    activeKeys: r.keys,
    joinedAt: r.createdAt.toISOString(),
  }));
}

/** The caller's own membership figures (a member's header shows their cap, not the balance). */
export async function ownMembership(db: DbOrTx, accountId: string, userId: string) {
  return (await listMembers(db, accountId, userId))[0] ?? null;
}

/**
 * The member a change is about, row-locked, and the actor's role as it is now. Every change that
 * can touch who owns an organisation locks its row first, so two owners leaving or demoting each
 * other at once run one after the other and the second sees the first's result: the last-owner
 * rule cannot be raced, and an actor demoted a moment ago acts with the role they have now, not
 * the one their request started with. (The account row comes first in the lock order,
 * lib/billing/lock-order.ts.)
 */
async function target(tx: DbOrTx, actor: Actor, userId: string) {
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, actor.accountId)).for("update");
  const [m] = await tx
    .select({ role: memberships.role, monthlyCapMicroUsd: memberships.monthlyCapMicroUsd, personal: accounts.personal, personalOf: users.accountId })
    .from(memberships)
    .innerJoin(accounts, eq(accounts.id, memberships.accountId))
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.accountId, actor.accountId), eq(memberships.userId, userId)))
    .for("update", { of: memberships });
  if (!m) throw new AppError("not_found", "No such member.");
  if (userId === actor.id) return { ...m, actorRole: m.role };
  const [a] = await tx.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.accountId, actor.accountId), eq(memberships.userId, actor.id)));
  if (!a || !can(a.role, "members")) throw new AppError("forbidden", "Your role in this organisation changed: reload the page.");
  return { ...m, actorRole: a.role };
}

async function otherOwners(tx: DbOrTx, accountId: string, userId: string): Promise<number> {
  const [r] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(memberships)
    .where(and(eq(memberships.accountId, accountId), eq(memberships.role, "owner"), sql`${memberships.userId} <> ${userId}`));
  return r?.n ?? 0;
}

export async function updateMember(db: DB, actor: Actor, userId: string, body: z.infer<typeof memberUpdateSchema>) {
  const updated = await db.transaction(async (tx) => {
    const m = await target(tx, actor, userId);
    const set: Partial<typeof memberships.$inferInsert> = {};
    if (body.role !== undefined && body.role !== m.role) {
      // Making or unmaking an owner is ownership transfer: owners only.
      if ((body.role === "owner" || m.role === "owner") && m.actorRole !== "owner") throw new AppError("forbidden", "Only an owner can make or change an owner.", { field: "role" });
      if (m.role === "owner" && (await otherOwners(tx, actor.accountId, userId)) === 0) throw new AppError("conflict", "An organisation needs an owner: make someone else owner first.", { field: "role" });
      if (m.role === "owner" && m.personalOf === actor.accountId) throw new AppError("conflict", "The owner of a personal organisation stays its owner.", { field: "role" });
      set.role = body.role;
    }
    if (body.monthlyCapUsd !== undefined) {
      if (m.role === "owner" && m.actorRole !== "owner") throw new AppError("forbidden", "Only an owner can set an owner's cap.", { field: "monthlyCapUsd" });
      set.monthlyCapMicroUsd = capFromUsd(body.monthlyCapUsd);
    }
    if (!Object.keys(set).length) throw new AppError("invalid_request", "Nothing to change.");
    await tx.update(memberships).set(set).where(and(eq(memberships.accountId, actor.accountId), eq(memberships.userId, userId)));
    await recordAudit(tx, { actorUserId: actor.id, actor: actor.email, action: "org.member_update", targetType: "user", targetId: userId, accountId: actor.accountId, details: { accountId: actor.accountId, ...set, ...auditDiff(m, set) } });
    return { userId, ...set };
  });
  // A lower cap binds at once: text leases hand back their unused money on every instance, so the
  // member's next request takes a fresh hold, which the cap trigger judges (decision 0018).
  if (updated.monthlyCapMicroUsd !== undefined) await askLeasesBack(actor.accountId);
  // A role decides how far the member's keys see (lib/keys/visibility.ts): cached keys reload.
  if (updated.role !== undefined) await notifyInvalidation({ kind: "accounts", ids: [actor.accountId] });
  return updated;
}

/**
 * Removes a member (or lets one leave), revokes the keys they created in the organisation and
 * forgets an auto top-up card they saved (the owners are alerted; it is detached at Stripe).
 */
export async function removeMember(db: DB, actor: Actor, userId: string) {
  const { hashes, card } = await db.transaction(async (tx) => {
    const m = await target(tx, actor, userId);
    const self = userId === actor.id;
    if (!self && m.role === "owner" && m.actorRole !== "owner") throw new AppError("forbidden", "Only an owner can remove an owner.");
    if (m.personalOf === actor.accountId) throw new AppError("conflict", "A personal organisation's owner cannot leave it.");
    if (m.role === "owner" && (await otherOwners(tx, actor.accountId, userId)) === 0) throw new AppError("conflict", "An organisation needs an owner: make someone else owner first.");
    await tx.delete(memberships).where(and(eq(memberships.accountId, actor.accountId), eq(memberships.userId, userId)));
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.accountId, actor.accountId), eq(apiKeys.createdByUserId, userId), isNull(apiKeys.revokedAt)))
      .returning({ hash: apiKeys.hash, previousHash: apiKeys.previousHash });
    const card = await forgetCardOfLeaver(tx, actor.accountId, userId);
    await recordAudit(tx, { actorUserId: actor.id, actor: actor.email, action: self ? "org.leave" : "org.member_remove", targetType: "user", targetId: userId, accountId: actor.accountId, details: { accountId: actor.accountId, keysRevoked: revoked.length, cardRemoved: !!card, before: { role: m.role }, after: null } });
    return { hashes: revoked.flatMap((r) => [r.hash, r.previousHash]).filter(Boolean) as string[], card };
  });
  // Revoked keys stop at once on every instance (as a revoke from the Keys page does).
  if (hashes.length) await notifyInvalidation({ kind: "keys", hashes });
  if (card) await detachCard(stripePayments(), card, actor.accountId);
  return { userId, keysRevoked: hashes.length };
}

/**
 * Deletes an organisation (owners only, never a personal one): its money history stays for the
 * books, so the row is disabled (and stamped deleted) rather than removed — every membership and pending invitation
 * goes, every key is revoked, and it leaves everyone's switcher. Refused while it holds money
 * (balance or requests in flight), which would otherwise be lost to its members.
 */
export async function deleteOrg(db: DB, actor: Actor) {
  // Idle text leases still hold money for a moment after the last request: ask them back first.
  await waitForSpendable(db, actor.accountId, 0);
  const hashes = await db.transaction(async (tx) => {
    const [a] = await tx.select().from(accounts).where(eq(accounts.id, actor.accountId)).for("update");
    if (!a) throw new AppError("not_found", "No such organisation.");
    if (a.personal) throw new AppError("conflict", "A personal organisation cannot be deleted.");
    if (a.balanceMicroUsd !== 0 || a.heldMicroUsd !== 0) {
      throw new AppError("conflict", "This organisation still has a balance or requests in flight: spend it or ask an administrator to move it first.");
    }
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.accountId, actor.accountId), isNull(apiKeys.revokedAt)))
      .returning({ hash: apiKeys.hash, previousHash: apiKeys.previousHash });
    await tx.delete(memberships).where(eq(memberships.accountId, actor.accountId));
    await tx.update(orgInvites).set({ revokedAt: new Date() }).where(and(eq(orgInvites.accountId, actor.accountId), isNull(orgInvites.acceptedAt), isNull(orgInvites.revokedAt)));
    await tx.update(accounts).set({ disabled: true, deletedAt: new Date() }).where(eq(accounts.id, actor.accountId));
    await recordAudit(tx, { actorUserId: actor.id, actor: actor.email, action: "org.delete", targetType: "account", targetId: actor.accountId, accountId: actor.accountId, details: { before: { name: a.name, deleted: false }, after: { deleted: true }, name: a.name, keysRevoked: revoked.length } });
    return revoked.flatMap((r) => [r.hash, r.previousHash]).filter(Boolean) as string[];
  });
  if (hashes.length) await notifyInvalidation({ kind: "keys", hashes });
  // Nobody may pay into it any more, nor be charged for it: Checkout pages still open are expired
  // (one paid anyway is refunded on arrival, stripe-fulfill.ts) and the saved card is detached.
  const stripe = stripePayments();
  if (stripe) {
    await expireOpenCheckouts(db, stripe, actor.accountId);
    await removeCard(db, stripe, actor.accountId);
  }
  return { id: actor.accountId, deleted: true };
}
