/**
 * Sign-in and sign-up attempt limits (OWASP ASVS V2.2.1). In-process fixed windows kept on
 * globalThis (the custom server and Next's bundles share one process). With several instances
 * each one counts on its own, which bounds an attacker to instances × limit.
 */
const KEY = Symbol.for("gateway.authRateLimit");

interface Window {
  count: number;
  resetAt: number;
}
type G = typeof globalThis & { [KEY]?: Map<string, Window> };

function windows(): Map<string, Window> {
  const g = globalThis as G;
  g[KEY] ??= new Map();
  return g[KEY]!;
}

export interface LimitRule {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

/** Failed sign-ins per email+address, per email (any address), and per address. */
export const SIGN_IN_RULES = {
  emailAndIp: { limit: 5, windowMs: 60_000 },
  email: { limit: 20, windowMs: 15 * 60_000 },
  ip: { limit: 50, windowMs: 15 * 60_000 },
} satisfies Record<string, LimitRule>;

/** Sign-ups per address per hour: slows scripted account farming, leaves room for an office NAT. */
export const SIGN_UP_RULE: LimitRule = { limit: 20, windowMs: 60 * 60_000 };

/** Seconds until `id` may try again, or 0 when it is under its limit. Does not count. */
export function blockedFor(id: string, rule: LimitRule, now = Date.now()): number {
  const w = windows().get(id);
  if (!w || w.resetAt <= now) return 0;
  return w.count >= rule.limit ? Math.ceil((w.resetAt - now) / 1000) : 0;
}

/** Counts one attempt against `id`. */
export function hit(id: string, rule: LimitRule, now = Date.now()): void {
  const map = windows();
  const w = map.get(id);
  if (!w || w.resetAt <= now) {
    map.set(id, { count: 1, resetAt: now + rule.windowMs });
    if (map.size > 50_000) prune(now);
  } else {
    w.count += 1;
  }
}

export function clear(id: string): void {
  windows().delete(id);
}

function prune(now: number): void {
  for (const [k, w] of windows()) if (w.resetAt <= now) windows().delete(k);
}

/** The first client address from the request headers ("unknown" when there is none). */
export function clientAddress(headers: Headers | Record<string, unknown> | undefined): string {
  const get = (name: string): string | undefined => {
    if (!headers) return undefined;
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const v = (headers as Record<string, unknown>)[name];
    return Array.isArray(v) ? String(v[0]) : typeof v === "string" ? v : undefined;
  };
  const fwd = get("x-forwarded-for")?.split(",")[0]?.trim();
  return fwd || get("x-real-ip") || "unknown";
}

/** Seconds to wait before signing in as `email` from `ip` again; 0 = allowed. */
export function signInBlockedFor(email: string, ip: string, now = Date.now()): number {
  return Math.max(
    blockedFor(`in:ei:${email}|${ip}`, SIGN_IN_RULES.emailAndIp, now),
    blockedFor(`in:e:${email}`, SIGN_IN_RULES.email, now),
    blockedFor(`in:i:${ip}`, SIGN_IN_RULES.ip, now),
  );
}

export function recordSignInFailure(email: string, ip: string, now = Date.now()): void {
  hit(`in:ei:${email}|${ip}`, SIGN_IN_RULES.emailAndIp, now);
  hit(`in:e:${email}`, SIGN_IN_RULES.email, now);
  hit(`in:i:${ip}`, SIGN_IN_RULES.ip, now);
}

export function recordSignInSuccess(email: string, ip: string): void {
  clear(`in:ei:${email}|${ip}`);
}
