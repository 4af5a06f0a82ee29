/**
 * Console users. Signing up creates the user, their personal organisation (an `accounts` row)
 * and their owner membership in one transaction, so a single user works as before. The first
 * user, and anyone listed in ADMIN_EMAILS, is a gateway admin.
 */
import { eq, sql } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, auditLog, authAccounts, memberships, users } from "../../db/schema";
import { env } from "../env";
import { newId } from "../ids";
import { hashPassword } from "./password";
import type { Result } from "../result";

export type UserRow = typeof users.$inferSelect;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isAdminEmail(email: string): boolean {
  return env().ADMIN_EMAILS.includes(normalizeEmail(email));
}

export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, normalizeEmail(email)));
  return row;
}

export async function findUserById(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export interface CreateUserInput {
  email: string;
  /** Omitted for users who only sign in with an OAuth provider. */
  password?: string;
  name?: string | null;
  image?: string | null;
  /** Force admin (the CLI's --admin); otherwise first user or ADMIN_EMAILS. */
  admin?: boolean;
  /** "signup", "oauth:github", "cli", … — recorded in the audit list. */
  via: string;
  /** SIGNUP=invite: the invite's nonce, refused when already used, recorded as used otherwise. */
  inviteNonce?: string;
  actorUserId?: string | null;
}

export type CreateUserResult = Result<UserRow, "email_taken" | "invite_used" | "invite_unknown">;

// Serialises "is this the first user?" across concurrent sign-ups (PostgreSQL and PGlite).
const FIRST_USER_LOCK = 7_246_114;

export async function createUser(db: DB, input: CreateUserInput): Promise<CreateUserResult> {
  const email = normalizeEmail(input.email);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return db.transaction(async (tx): Promise<CreateUserResult> => {
    await tx.execute(sql`select pg_advisory_xact_lock(${FIRST_USER_LOCK})`);
    const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (taken) return { ok: false, error: "email_taken" };
    if (input.inviteNonce) {
      // Under the lock above, so two sign-ups cannot both spend one invite. Only an invite an
      // admin made (recorded `invite.create`) counts: a signed token from anywhere else does not.
      const seen = await tx
        .select({ action: auditLog.action })
        .from(auditLog)
        .where(sql`${auditLog.action} in ('invite.create', 'invite.use') and ${auditLog.targetId} = ${input.inviteNonce}`);
      if (seen.some((r) => r.action === "invite.use")) return { ok: false, error: "invite_used" };
      if (!seen.length) return { ok: false, error: "invite_unknown" };
    }
    const [{ n }] = (await tx.select({ n: sql<number>`count(*)::int` }).from(users)) as [{ n: number }];
    const role = input.admin || n === 0 || isAdminEmail(email) ? "admin" : "user";
    const accountId = newId("account");
    await tx.insert(accounts).values({ id: accountId, name: email, personal: true });
    const [user] = await tx
      .insert(users)
      .values({
        id: newId("user"),
        accountId,
        email,
        name: input.name ?? null,
        image: input.image ?? null,
        passwordHash,
        role,
      })
      .returning();
    await tx.insert(memberships).values({ accountId, userId: user!.id, role: "owner" });
    await tx.insert(auditLog).values({
      actorUserId: input.actorUserId ?? user!.id,
      actor: input.via === "cli" ? "cli" : email,
      action: "user.create",
      targetType: "user",
      targetId: user!.id,
      details: { via: input.via, role },
    });
    if (input.inviteNonce) {
      await tx.insert(auditLog).values({ actorUserId: user!.id, actor: email, action: "invite.use", targetType: "invite", targetId: input.inviteNonce, details: {} });
    }
    return { ok: true, value: user! };
  });
}

/**
 * Signs in an OAuth identity: the linked user, else the user with the same (provider-verified)
 * email, else a new user (unless sign-up is closed). Returns null for a disabled user.
 */
export async function userForOAuth(
  db: DB,
  input: { provider: string; providerAccountId: string; type: string; email: string; name?: string | null; image?: string | null; allowCreate?: boolean },
): Promise<UserRow | null | "signup_closed"> {
  const [linked] = await db
    .select({ user: users })
    .from(authAccounts)
    .innerJoin(users, eq(users.id, authAccounts.userId))
    .where(sql`${authAccounts.provider} = ${input.provider} and ${authAccounts.providerAccountId} = ${input.providerAccountId}`);
  let user: UserRow | undefined = linked?.user ?? (await findUserByEmail(db, input.email));
  if (!user && input.allowCreate === false) return "signup_closed";
  if (!user) {
    const created = await createUser(db, { email: input.email, name: input.name, image: input.image, via: `oauth:${input.provider}` });
    user = created.ok ? created.value : await findUserByEmail(db, input.email);
  }
  if (!user) return null;
  if (!linked) {
    await db
      .insert(authAccounts)
      .values({ userId: user.id, type: input.type, provider: input.provider, providerAccountId: input.providerAccountId })
      .onConflictDoNothing();
  }
  return user.disabled ? null : user;
}
