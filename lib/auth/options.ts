/**
 * next-auth v4 options: email + password (argon2id) always, GitHub and Google when their env
 * vars are set. Sessions are JWTs (the credentials provider requires it); the token carries
 * the user's sessionVersion, which every request compares with the database
 * (lib/auth/session.ts), so disabling or demoting a user takes effect at once.
 */
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { eq, sql } from "drizzle-orm";
import { safeCallback } from "./callback";
import { getDb } from "../../db/client";
import { users } from "../../db/schema";
import { env } from "../env";
import { verifyPassword } from "./password";
import { passwordSignInRefused } from "./sso-required";
import { requestClientAddress } from "../net/request-address";
import { recordSignInFailure, recordSignInSuccess, signInBlockedFor } from "./rate-limit";
import { authSecret, ensureNextAuthUrl } from "./secret";
import { findUserByEmail, findUserById, normalizeEmail, userForOAuth } from "./users";

/** Error codes the sign-in page turns into words (next-auth passes them through as `error`). */
export const SIGN_IN_ERRORS = {
  CredentialsSignin: "Wrong email or password.",
  RateLimited: "Too many attempts. Wait a minute and try again.",
  AccountDisabled: "This account is disabled. Contact your administrator.",
  SignupClosed: "Sign-up is closed on this gateway. Ask an administrator to create your account.",
  SsoRequired: "Your organisation requires single sign-on: use \u201cSign in with SSO\u201d.",
} as const;

export const SESSION_MAX_AGE_S = 7 * 24 * 3600;

/** What the JWT carries besides next-auth's own claims. */
export interface GatewayToken {
  sub?: string;
  accountId?: string;
  role?: "user" | "admin";
  /** users.sessionVersion when the token was issued. */
  sv?: number;
}

export function authOptions(): NextAuthOptions {
  ensureNextAuthUrl();
  const e = env();
  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, req) {
        const email = normalizeEmail(String(credentials?.email ?? ""));
        const password = String(credentials?.password ?? "");
        if (!email || !password || password.length > 1024) return null;
        const ip = requestClientAddress(req?.headers as Record<string, unknown> | undefined);
        if ((await signInBlockedFor(email, ip)) > 0) throw new Error("RateLimited");
        const db = await getDb();
        const user = await findUserByEmail(db, email);
        // Verified even when the user is unknown, so timing does not reveal which emails exist.
        const ok = await verifyPassword(user?.passwordHash, password);
        if (!ok || !user) {
          await recordSignInFailure(email, ip);
          return null;
        }
        await recordSignInSuccess(email, ip);
        if (user.disabled) throw new Error("AccountDisabled");
        if (await passwordSignInRefused(db, user)) throw new Error("SsoRequired");
        return { id: user.id, email: user.email, name: user.name };
      },
    }),
  ];
  if (e.GITHUB_ID && e.GITHUB_SECRET) providers.push(GitHubProvider({ clientId: e.GITHUB_ID, clientSecret: e.GITHUB_SECRET }));
  if (e.GOOGLE_ID && e.GOOGLE_SECRET) providers.push(GoogleProvider({ clientId: e.GOOGLE_ID, clientSecret: e.GOOGLE_SECRET }));

  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: "/signin", error: "/signin" },
    providers,
    events: {
      // Signing out ends every session of the user, not only this cookie: a copied cookie
      // (or one left on another machine) dies with it (lib/auth/session.ts compares versions).
      async signOut({ token }) {
        const sub = (token as GatewayToken | null)?.sub;
        if (!sub) return;
        const db = await getDb();
        await db.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, sub));
      },
    },
    callbacks: {
      // next-auth's default accepts any "/…" string; ours parses it as a browser would.
      async redirect({ url, baseUrl }) {
        return `${baseUrl}${safeCallback(url, new URL(baseUrl).origin)}`;
      },
      async signIn({ user, account, profile }) {
        if (!account || account.provider === "credentials") return true;
        const email = user.email ?? (profile as { email?: string } | undefined)?.email;
        // Google says whether it verified the address; GitHub only returns verified primaries.
        if (account.provider === "google" && (profile as { email_verified?: boolean } | undefined)?.email_verified === false) return false;
        if (!email) return false;
        const db = await getDb();
        const row = await userForOAuth(db, {
          allowCreate: e.SIGNUP === "open", // closed or by invitation: OAuth signs in existing users only
          provider: account.provider,
          providerAccountId: account.providerAccountId,
          type: account.type,
          email,
          name: user.name,
          image: user.image,
        });
        if (row === "signup_closed") return "/signin?error=SignupClosed";
        if (!row) return "/signin?error=AccountDisabled";
        // next-auth puts the provider's id in `user.id`; ours is what the token must carry.
        user.id = row.id;
        return true;
      },
      async jwt({ token, user }) {
        if (user) {
          const db = await getDb();
          const row = await findUserById(db, user.id);
          if (row) {
            const t = token as GatewayToken;
            t.sub = row.id;
            t.accountId = row.accountId;
            t.role = row.role;
            t.sv = row.sessionVersion;
          }
        }
        return token;
      },
      async session({ session, token }) {
        const t = token as GatewayToken;
        return { ...session, user: { ...session.user, id: t.sub, role: t.role } } as typeof session;
      },
    },
  };
}
