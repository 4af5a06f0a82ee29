/**
 * Sign-up invitations for SIGNUP=invite. An invite is a signed token, not a table row: the
 * admin CLI (`invite create`) or POST /api/admin/invites makes one, optionally bound to one
 * email, valid for N days; its link is `/signup?invite=…`. The signature (HMAC-SHA256 with the
 * session secret) makes it unforgeable; single use is enforced when the user is created
 * (lib/auth/users.ts records `invite.use` with the invite's nonce under the same lock that
 * serialises every sign-up, and refuses a nonce already recorded).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { authSecret } from "./secret";
import { normalizeEmail } from "./users";
import type { Result } from "../result";

interface Payload {
  /** Nonce: what single use is recorded against. */
  n: string;
  /** Bound email, or null for anyone. */
  e: string | null;
  /** Expiry, Unix seconds. */
  x: number;
}

const PREFIX = "inv_";
export const MAX_INVITE_DAYS = 90;

function sign(payload: string): string {
  return createHmac("sha256", authSecret()).update(`invite:${payload}`).digest("base64url");
}

export function createInvite(opts: { email?: string | null; days?: number; now?: number } = {}): { token: string; url: string; expiresAt: string; nonce: string } {
  const days = Math.min(Math.max(opts.days ?? 7, 1), MAX_INVITE_DAYS);
  const now = opts.now ?? Date.now();
  const p: Payload = { n: randomBytes(16).toString("base64url"), e: opts.email ? normalizeEmail(opts.email) : null, x: Math.floor(now / 1000) + days * 86_400 };
  const body = Buffer.from(JSON.stringify(p)).toString("base64url");
  const token = `${PREFIX}${body}.${sign(body)}`;
  return { token, url: `${env().publicBaseUrl}/signup?invite=${token}`, expiresAt: new Date(p.x * 1000).toISOString(), nonce: p.n };
}

/** Why an invite cannot be used, and the sign-up form's field the message belongs to. */
export interface InviteRefusal {
  message: string;
  field: "invite" | "email";
}

/** The invite's nonce (spent at creation) and the address it is bound to (null: any). */
export type InviteCheck = Result<{ nonce: string; email: string | null }, InviteRefusal>;

/** Checks an invite for `email` (signature, expiry, bound email). Single use is checked at creation. */
export function checkInvite(token: string | undefined | null, email: string | null, now = Date.now()): InviteCheck {
  const bad: InviteCheck = { ok: false, error: { message: "This invite link is not valid. Ask an administrator for a new one.", field: "invite" } };
  if (!token || token.length > 1000 || !token.startsWith(PREFIX)) return bad;
  const [body, sig] = token.slice(PREFIX.length).split(".");
  if (!body || !sig) return bad;
  const want = Buffer.from(sign(body));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return bad;
  let p: Payload;
  try {
    p = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Payload;
  } catch {
    return bad;
  }
  if (typeof p.n !== "string" || typeof p.x !== "number" || (p.e !== null && typeof p.e !== "string")) return bad;
  if (p.x * 1000 <= now) return { ok: false, error: { message: "This invite has expired. Ask an administrator for a new one.", field: "invite" } };
  if (p.e && email !== null && p.e !== normalizeEmail(email)) return { ok: false, error: { message: "This invite is for another email address.", field: "email" } };
  return { ok: true, value: { nonce: p.n, email: p.e } };
}
