/**
 * Sign-in and sign-up attempt limits (OWASP ASVS V2.2.1) on rate-limiter-flexible: counted in
 * Redis when REDIS_URL is set, so every instance sees the same counts, in process memory
 * otherwise. If Redis fails, each instance falls back to its own memory counts (the library's
 * insurance limiter) rather than letting attempts through uncounted. Addresses come from
 * lib/net (socket peer, or the right-most untrusted X-Forwarded-For entry under TRUST_PROXY).
 * Decision 0010.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { AppError } from "../app-error";
import { env } from "../env";
import { addressBucket } from "../trust-proxy";
import { sharedRedis } from "../redis";
import { processSingleton } from "../process-singleton";

export interface LimitRule {
  /** Attempts allowed per window. */
  limit: number;
  windowS: number;
}

/** Failed sign-ins per email+address, per email (any address), and per address. */
export const SIGN_IN_RULES = {
  emailAndIp: { limit: 5, windowS: 60 },
  email: { limit: 20, windowS: 15 * 60 },
  ip: { limit: 50, windowS: 15 * 60 },
} satisfies Record<string, LimitRule>;

/** Sign-ups per address per hour (SIGNUP_LIMIT_PER_HOUR, 20): slows scripted account farming, leaves room for an office NAT. */
const signUpRule = (): LimitRule => ({ limit: env().SIGNUP_LIMIT_PER_HOUR, windowS: 60 * 60 });

/** Failed API-key authentications per address per minute (unknown-key floods, issue 12 item 12). */
export const FAILED_KEY_RULE: LimitRule = { limit: 30, windowS: 60 };

// Promises, so that parallel first attempts share one limiter (and one count) instead of each making its own.
const limiters = processSingleton("gateway.authLimiters", () => new Map<string, Promise<RateLimiterAbstract>>());

function limiter(name: string, rule: LimitRule): Promise<RateLimiterAbstract> {
  let l = limiters().get(name);
  if (!l) {
    const opts = { points: rule.limit, duration: rule.windowS, keyPrefix: `gw_auth_${name}` };
    l = sharedRedis().then((redis) =>
      redis ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) }) : new RateLimiterMemory(opts),
    );
    limiters().set(name, l);
  }
  return l;
}

/** Seconds until `id` may try again under `rule`, or 0. Does not count. */
export async function blockedFor(name: string, rule: LimitRule, id: string): Promise<number> {
  const res = await (await limiter(name, rule)).get(id);
  if (!res || res.consumedPoints < rule.limit) return 0;
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

/** Counts `points` attempts; returns the seconds to wait when this went over the limit, else 0. */
export async function hit(name: string, rule: LimitRule, id: string, points = 1): Promise<number> {
  try {
    await (await limiter(name, rule)).consume(id, points);
    return 0;
  } catch (err) {
    if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw err;
  }
}

/** Gives back one point `hit` counted: an attempt reserved up front that turned out not to count. */
export async function giveBack(name: string, rule: LimitRule, id: string): Promise<void> {
  await (await limiter(name, rule)).reward(id, 1);
}

async function clear(name: string, rule: LimitRule, id: string): Promise<void> {
  await (await limiter(name, rule)).delete(id);
}

/** Seconds to wait before signing in as `email` from `ip` again; 0 = allowed. */
export async function signInBlockedFor(email: string, ip: string): Promise<number> {
  const bucket = addressBucket(ip);
  const waits = await Promise.all([
    blockedFor("in_ei", SIGN_IN_RULES.emailAndIp, `${email}|${bucket}`),
    blockedFor("in_e", SIGN_IN_RULES.email, email),
    blockedFor("in_i", SIGN_IN_RULES.ip, bucket),
  ]);
  return Math.max(...waits);
}

export async function recordSignInFailure(email: string, ip: string): Promise<void> {
  const bucket = addressBucket(ip);
  await Promise.all([
    hit("in_ei", SIGN_IN_RULES.emailAndIp, `${email}|${bucket}`),
    hit("in_e", SIGN_IN_RULES.email, email),
    hit("in_i", SIGN_IN_RULES.ip, bucket),
  ]);
}

export async function recordSignInSuccess(email: string, ip: string): Promise<void> {
  await clear("in_ei", SIGN_IN_RULES.emailAndIp, `${email}|${addressBucket(ip)}`);
}

/** Counts a sign-up attempt from `ip`; the seconds to wait when over the limit, else 0. */
export async function signUpAttempt(ip: string): Promise<number> {
  return hit("up_i", signUpRule(), addressBucket(ip));
}

/*
 * Failed API-key authentications per address. The count is shared (Redis) and touched only when
 * a key fails; an address over the limit is also remembered in process, so that while it is
 * refused the check is one Map lookup and its unknown keys cost no database query. A valid
 * key's request never waits on any of this (lib/gateway/auth.ts).
 */

const blockedAddresses = processSingleton("gateway.failedKeyBlocked", () => new Map<string, number>());

export function anyFailedKeyBlocks(): boolean {
  return blockedAddresses().size > 0;
}

/** Seconds this address stays refused here, 0 when it is not (no I/O). */
export function failedKeyBlockedFor(ip: string, now = Date.now()): number {
  const m = blockedAddresses();
  if (m.size === 0) return 0;
  const bucket = addressBucket(ip);
  const until = m.get(bucket);
  if (until === undefined) return 0;
  if (until <= now) {
    m.delete(bucket);
    return 0;
  }
  return Math.ceil((until - now) / 1000);
}

/** Counts a failed key from `ip`; the seconds to refuse it for when it went over the limit, else 0. */
export async function recordFailedKey(ip: string, now = Date.now()): Promise<number> {
  const bucket = addressBucket(ip);
  const wait = await hit("key_i", FAILED_KEY_RULE, bucket);
  if (wait > 0) {
    const m = blockedAddresses();
    if (m.size >= 10_000) m.clear();
    m.set(bucket, now + wait * 1000);
  }
  return wait;
}

/**
 * Email a user can make the gateway send (organisation invitations, test alerts, verification
 * links, password resets): per sender and per recipient inbox, counted across instances, so that
 * neither a fresh account nor a stranger can use the gateway as a mailer. A sender is a user id
 * (a password reset's is the client address, under `resetIp`). The verification email sent at
 * sign-up is not counted: sign-ups have their own limit.
 */
export const EMAIL_SEND_RULES = {
  sender: { limit: 20, windowS: 60 * 60 },
  recipient: { limit: 5, windowS: 60 * 60 },
  resetIp: { limit: 20, windowS: 60 * 60 },
} satisfies Record<string, LimitRule>;

const minutes = (s: number) => `${Math.ceil(s / 60)} minute${s > 60 ? "s" : ""}`;

/**
 * Counts the emails `senderUserId` is about to send, one per recipient (at least one: a test
 * alert with no email recipient still posts its webhook), and throws a 429 naming the limit
 * when one is passed. Counted before sending, so parallel requests cannot all slip under it.
 * Recipients are normalized addresses (lib/auth/users.ts normalizeEmail), as stored.
 */
export async function countEmailSend(senderUserId: string, recipients: string[]): Promise<void> {
  const [sender, ...each] = await Promise.all([
    hit("em_s", EMAIL_SEND_RULES.sender, senderUserId, Math.max(1, recipients.length)),
    ...recipients.map((r) => hit("em_r", EMAIL_SEND_RULES.recipient, r)),
  ]);
  if (sender! > 0) {
    throw new AppError("rate_limited", `You have sent too many emails (${EMAIL_SEND_RULES.sender.limit} an hour). Try again in ${minutes(sender!)}.`, { retryAfterS: sender });
  }
  const i = each.findIndex((w) => w > 0);
  if (i >= 0) {
    throw new AppError("rate_limited", `Too many emails to ${recipients[i]} lately (${EMAIL_SEND_RULES.recipient.limit} an hour). Try again in ${minutes(each[i]!)}.`, { retryAfterS: each[i], field: "email" });
  }
}

/** Counts a password-reset request (per inbox, shared with the rule above, and per client address); the seconds to wait, else 0. */
export async function resetRequestAttempt(email: string, ip: string): Promise<number> {
  const waits = await Promise.all([hit("em_r", EMAIL_SEND_RULES.recipient, email), hit("rs_i", EMAIL_SEND_RULES.resetIp, addressBucket(ip))]);
  return Math.max(...waits);
}

/** Rejected email-link tokens per client address (tokens are 256-bit; this only keeps noise down). */
export const EMAIL_LINK_FAILURE_RULE: LimitRule = { limit: 20, windowS: 15 * 60 };

export async function emailLinkBlockedFor(ip: string): Promise<number> {
  return blockedFor("el_i", EMAIL_LINK_FAILURE_RULE, addressBucket(ip));
}

export async function recordEmailLinkFailure(ip: string): Promise<void> {
  await hit("el_i", EMAIL_LINK_FAILURE_RULE, addressBucket(ip));
}
