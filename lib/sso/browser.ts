/**
 * What the sign-in routes hand the browser: a next-auth session cookie for the user (the same
 * JWT the credentials and OAuth sign-ins get, so lib/auth/session.ts checks it alike), and the
 * short-lived sealed cookie that carries a sign-in's state, nonce and PKCE verifier between the
 * redirect to the IdP and its answer.
 */
import { encode } from "next-auth/jwt";
import { decryptSecret, encryptSecret } from "../crypto";
import { env } from "../env";
import { SESSION_MAX_AGE_S, type GatewayToken } from "../auth/options";
import { authSecret, ensureNextAuthUrl } from "../auth/secret";
import { ORG_COOKIE, cookieValue } from "../auth/session";
import type { UserRow } from "../auth/users";

const secure = () => env().publicBaseUrl.startsWith("https:");

/** next-auth's cookie name: the `__Secure-` prefix on https, as next-auth itself picks it. */
export function sessionCookieName(): string {
  return secure() ? "__Secure-next-auth.session-token" : "next-auth.session-token";
}

/** Set-Cookie lines that sign `user` in (and make `accountId` the active organisation). */
export async function sessionCookies(user: UserRow, accountId: string | null): Promise<string[]> {
  ensureNextAuthUrl();
  const token: GatewayToken & { email: string; name: string | null } = {
    sub: user.id,
    accountId: user.accountId,
    role: user.role,
    sv: user.sessionVersion,
    email: user.email,
    name: user.name,
  };
  const jwt = await encode({ token: { ...token }, secret: authSecret(), maxAge: SESSION_MAX_AGE_S });
  const flags = `Path=/; HttpOnly; SameSite=Lax${secure() ? "; Secure" : ""}`;
  const out = [`${sessionCookieName()}=${jwt}; ${flags}; Max-Age=${SESSION_MAX_AGE_S}`];
  if (accountId) out.push(`${ORG_COOKIE}=${encodeURIComponent(accountId)}; ${flags}; Max-Age=31536000`);
  return out;
}

/**
 * The state cookie. SAML's answer arrives as a cross-site POST, which a SameSite=Lax cookie would
 * miss: `crossSite` makes it SameSite=None (browsers then require Secure, which they honour on
 * https and on localhost).
 */
const STATE_COOKIE = "gw-sso-state";
const STATE_TTL_S = 600;

export function stateCookie<T extends object>(value: T, crossSite = false): string {
  const sealed = encryptSecret(JSON.stringify({ ...value, exp: Date.now() + STATE_TTL_S * 1000 }));
  const site = crossSite ? "SameSite=None; Secure" : `SameSite=Lax${secure() ? "; Secure" : ""}`;
  return `${STATE_COOKIE}=${sealed}; Path=/api/auth/sso; HttpOnly; ${site}; Max-Age=${STATE_TTL_S}`;
}

export function clearStateCookie(): string {
  return `${STATE_COOKIE}=; Path=/api/auth/sso; HttpOnly; SameSite=Lax; Max-Age=0`;
}

/** The state the sign-in started with, or null (missing, tampered with or expired). */
export function readStateCookie<T extends object>(cookieHeader: string | null): T | null {
  const raw = cookieValue(cookieHeader, STATE_COOKIE);
  if (!raw) return null;
  try {
    const v = JSON.parse(decryptSecret(raw)) as T & { exp: number };
    return v.exp > Date.now() ? v : null;
  } catch {
    return null;
  }
}

/** A redirect that also sets cookies (Response.redirect's headers are immutable). */
export function redirectTo(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

/** Back to the sign-in page with an error code the page explains (lib/auth/options.ts SIGN_IN_ERRORS). */
export function signInError(code: string): Response {
  return redirectTo(`${env().publicBaseUrl}/signin?error=${encodeURIComponent(code)}`, [clearStateCookie()]);
}
