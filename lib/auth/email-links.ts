/**
 * Password reset and email verification by single-use links (decision 0017). The link carries a
 * random token after `#`, so it never reaches a server or proxy access log; the page POSTs it.
 * The database holds HMAC(session secret, token) only, the address it was sent to, an expiry,
 * and `used_at`, set by one conditional UPDATE so a link works once.
 */
import { createHmac, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { auditLog, emailTokens, users } from "../../db/schema";
import { AppError } from "../app-error";
import { emailAvailable, passwordResetEmail, sendEmail, sendLater, verifyEmailEmail } from "../email";
import { env } from "../env";
import { logger } from "../logger";
import { hashPassword, passwordProblem } from "./password";
import { countEmailSend, emailLinkBlockedFor, recordEmailLinkFailure, resetRequestAttempt } from "./rate-limit";
import { authSecret } from "./secret";
import { findUserByEmail, findUserById, normalizeEmail } from "./users";

export type LinkPurpose = "password_reset" | "verify_email";

export const RESET_TTL_MIN = 30;
export const VERIFY_TTL_H = 48;

const PATH: Record<LinkPurpose, string> = { password_reset: "/reset-password", verify_email: "/verify-email" };

function tokenHash(token: string): string {
  return createHmac("sha256", authSecret()).update(`email-link:${token}`).digest("base64url");
}

/** Stores a new link for `user` and returns its URL. */
export async function issueLink(db: DbOrTx, user: { id: string; email: string }, purpose: LinkPurpose, now = new Date()): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const ttlMs = purpose === "password_reset" ? RESET_TTL_MIN * 60_000 : VERIFY_TTL_H * 3_600_000;
  await db.insert(emailTokens).values({ userId: user.id, purpose, tokenHash: tokenHash(token), email: user.email, expiresAt: new Date(now.getTime() + ttlMs) });
  return `${env().publicBaseUrl}${PATH[purpose]}#token=${token}`;
}

/** Spends a link: the row when it was valid, unused and unexpired, else null. */
async function spend(tx: DbOrTx, token: string, purpose: LinkPurpose) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [row] = await tx
    .update(emailTokens)
    .set({ usedAt: sql`now()` })
    .where(and(eq(emailTokens.tokenHash, tokenHash(token)), eq(emailTokens.purpose, purpose), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, sql`now()`)))
    .returning();
  return row ?? null;
}

export const RESET_SENT_MESSAGE = "If an account uses this email, a link to choose a new password is on its way. It works once, for 30 minutes.";

/**
 * Sends a reset link when the address has an account. Answers the same either way, and in the
 * same time: the request path only counts the request; looking the address up, storing the link
 * and the SMTP round trip happen after the answer (decision 0040). SMTP failures are logged.
 */
export async function requestPasswordReset(db: DB, rawEmail: string, ip: string): Promise<{ message: string }> {
  if (!emailAvailable()) throw new AppError("email_disabled", "This gateway does not send email. Ask its administrator to set a new password.");
  const email = normalizeEmail(rawEmail);
  const wait = await resetRequestAttempt(email, ip);
  if (wait > 0) throw new AppError("rate_limited", "Too many reset requests. Try again later.", { retryAfterS: wait });
  sendLater("password_reset", () => sendResetLink(db, email));
  return { message: RESET_SENT_MESSAGE };
}

async function sendResetLink(db: DB, email: string): Promise<void> {
  const user = await findUserByEmail(db, email);
  if (!user || user.disabled) return;
  const url = await issueLink(db, user, "password_reset");
  await sendEmail(passwordResetEmail(user.email, url, RESET_TTL_MIN));
}

const BAD_LINK = "This link is not valid any more: it was used, it expired, or it was copied incompletely. Ask for a new one.";

async function refuseBadLink(ip: string): Promise<never> {
  await recordEmailLinkFailure(ip);
  throw new AppError("invalid_request", BAD_LINK, { field: "token" });
}

async function checkLinkLimit(ip: string): Promise<void> {
  const wait = await emailLinkBlockedFor(ip);
  if (wait > 0) throw new AppError("rate_limited", "Too many invalid links from this address. Try again later.", { retryAfterS: wait });
}

/**
 * Whether a reset link would still work, without spending it: the reset page asks when it opens,
 * so a spent or expired link is said to be dead before anyone types a password. A dead link
 * counts against the address's invalid-link limit, as a refused reset does.
 */
export async function checkResetLink(db: DB, token: string, ip: string): Promise<{ valid: true }> {
  await checkLinkLimit(ip);
  const [live] = /^[A-Za-z0-9_-]{43}$/.test(token)
    ? await db
        .select({ id: emailTokens.id })
        .from(emailTokens)
        .innerJoin(users, and(eq(users.id, emailTokens.userId), eq(users.email, emailTokens.email), eq(users.disabled, false)))
        .where(and(eq(emailTokens.tokenHash, tokenHash(token)), eq(emailTokens.purpose, "password_reset"), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, sql`now()`)))
    : [];
  if (!live) return refuseBadLink(ip);
  return { valid: true };
}

/**
 * Sets a new password with a reset link: spends the link and every other open reset link of the
 * user, marks the email verified, and signs out every session (session_version + 1).
 */
export async function resetPassword(db: DB, token: string, password: string, ip: string): Promise<{ email: string }> {
  await checkLinkLimit(ip);
  const problem = passwordProblem(password);
  if (problem) throw new AppError("invalid_request", problem, { field: "password" });
  const hash = await hashPassword(password);
  const done = await db.transaction(async (tx) => {
    const row = await spend(tx, token, "password_reset");
    if (!row) return null;
    const [user] = await tx
      .update(users)
      .set({ passwordHash: hash, sessionVersion: sql`${users.sessionVersion} + 1`, emailVerified: sql`coalesce(${users.emailVerified}, now())` })
      .where(and(eq(users.id, row.userId), eq(users.email, row.email), eq(users.disabled, false)))
      .returning({ id: users.id, email: users.email });
    if (!user) return null;
    await tx
      .update(emailTokens)
      .set({ usedAt: sql`now()` })
      .where(and(eq(emailTokens.userId, user.id), eq(emailTokens.purpose, "password_reset"), isNull(emailTokens.usedAt)));
    await tx.insert(auditLog).values({ actorUserId: user.id, actor: user.email, action: "user.password_reset", targetType: "user", targetId: user.id, details: { via: "email link" } });
    return user;
  });
  if (!done) return refuseBadLink(ip);
  return { email: done.email };
}

/** Emails the signed-in user a verification link for their current address. */
export async function sendVerification(db: DB, userId: string): Promise<{ message: string }> {
  if (!emailAvailable()) throw new AppError("email_disabled", "This gateway does not send email, so addresses cannot be verified here.");
  const user = await findUserById(db, userId);
  if (!user) throw new AppError("not_found", "No such user.");
  if (user.emailVerified) return { message: "Your email is already verified." };
  await countEmailSend(user.id, [user.email]);
  const url = await issueLink(db, user, "verify_email");
  try {
    await sendEmail(verifyEmailEmail(user.email, url, VERIFY_TTL_H));
  } catch (err) {
    throw new AppError("upstream_error", "The email could not be sent. Try again in a moment.", { cause: err });
  }
  return { message: `We sent a link to ${user.email}. It works once, for ${VERIFY_TTL_H} hours.` };
}

/** After sign-up: a verification email when email is available; failures never fail the sign-up. */
export async function sendWelcomeVerification(db: DB, user: { id: string; email: string }): Promise<void> {
  if (!emailAvailable()) return;
  try {
    const url = await issueLink(db, user, "verify_email");
    await sendEmail(verifyEmailEmail(user.email, url, VERIFY_TTL_H));
  } catch (err) {
    logger().warn({ err, userId: user.id }, "verification email after sign-up failed");
  }
}

/** Marks the address verified when the link's address is still the user's. */
export async function verifyEmail(db: DB, token: string, ip: string): Promise<{ email: string }> {
  await checkLinkLimit(ip);
  const done = await db.transaction(async (tx) => {
    const row = await spend(tx, token, "verify_email");
    if (!row) return null;
    const [user] = await tx
      .update(users)
      .set({ emailVerified: sql`coalesce(${users.emailVerified}, now())` })
      .where(and(eq(users.id, row.userId), eq(users.email, row.email)))
      .returning({ email: users.email });
    return user ?? null;
  });
  if (!done) return refuseBadLink(ip);
  return done;
}
