/**
 * The signed-in user of a console request. The JWT only says who signed in; whether they may
 * still act is read from the database on every request: a disabled user, or one whose
 * sessionVersion was bumped (demotion, password change), is signed out at once. The active
 * organisation comes from the `gw-org` cookie, checked against the user's memberships on every
 * request (a stale or forged value falls back to the personal organisation).
 */
import { decode } from "next-auth/jwt";
import { getDb } from "../../db/client";
import { activeMembership } from "./membership";
import type { GatewayToken } from "./options";
import { authSecret, ensureNextAuthUrl } from "./secret";
import { findUserById } from "./users";
import type { SessionUser } from "../views";
export type { SessionUser };

/** The cookie naming the active organisation (an account id; never trusted without a membership). */
export const ORG_COOKIE = "gw-org";

/** One cookie's value from a Cookie header. */
export function cookieValue(cookieHeader: string | null | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return null;
}

const COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

/** Reads next-auth's session cookie (possibly split into `.0`, `.1`… chunks). Cookies only:
 * unlike next-auth's getToken, a bearer header is never taken as a session. */
export function sessionCookieValue(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader) return null;
  const jar = new Map<string, string>();
  for (const part of cookieHeader.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    jar.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  for (const name of COOKIE_NAMES) {
    if (jar.has(name)) return jar.get(name)!;
    const chunks: string[] = [];
    for (let n = 0; jar.has(`${name}.${n}`); n++) chunks.push(jar.get(`${name}.${n}`)!);
    if (chunks.length) return chunks.join("");
  }
  return null;
}

/** The user behind a cookie header, or null (no session, bad token, disabled, or stale). */
export async function userFromCookies(cookieHeader: string | null | undefined): Promise<SessionUser | null> {
  ensureNextAuthUrl();
  const raw = sessionCookieValue(cookieHeader);
  if (!raw) return null;
  let token: GatewayToken | null;
  try {
    token = (await decode({ token: decodeURIComponent(raw), secret: authSecret() })) as GatewayToken | null;
  } catch {
    return null;
  }
  if (!token?.sub) return null;
  const user = await findUserById(await getDb(), token.sub);
  if (!user || user.disabled || user.sessionVersion !== (token.sv ?? 0)) return null;
  const wanted = cookieValue(cookieHeader, ORG_COOKIE);
  const m = await activeMembership(await getDb(), user.id, wanted && wanted.length <= 100 ? wanted : null, user.accountId);
  if (!m) return null;
  return { id: user.id, accountId: m.accountId, orgRole: m.role, personalAccountId: user.accountId, email: user.email, name: user.name, role: user.role };
}
