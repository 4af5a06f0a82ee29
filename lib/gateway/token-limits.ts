/**
 * Tokens per minute and concurrent requests, per key and per account (docs/decisions/0023-tpm-reservation.md).
 * Admission reserves the request's worst case (prompt bound + output cap, the numbers the money
 * hold uses) in the current minute's window and takes a concurrency slot; the release gives back
 * the difference to real usage and frees the slot. One Lua round trip on Redis when REDIS_URL is
 * set (the RPM limiter's connection), in-process otherwise; a Redis failure fails open, like the
 * RPM limit. Principals without these limits pay nothing.
 */
import { randomUUID } from "node:crypto";
import { logger } from "../logger";
import { metrics } from "../metrics";
import { processSingleton } from "../process-singleton";
import type { ApiError } from "./errors";
import type { Result } from "../result";
import { sharedRedis } from "../redis";
import type { Principal } from "./types";

const WINDOW_MS = 60_000;
/** A slot whose release never came (a crashed instance) frees itself after this long. */
export const CONCURRENCY_TTL_MS = 15 * 60_000;

export interface Admission {
  /** x-ratelimit-*-tokens for the response (empty without a TPM limit). */
  headers: Record<string, string>;
  /** Settles the reservation to the tokens really used and frees the slot; idempotent. */
  release(usedTokens: number): void;
}

export type AdmitResult = Result<Admission, ApiError>;

interface Subject {
  id: string;
  tpm: number;
  concurrent: number;
}

function subjects(p: Principal): Subject[] {
  const out: Subject[] = [];
  const own = p.keyId ? `k:${p.keyId}` : `u:${p.userId ?? p.accountId}`;
  if (p.keyTpm || p.keyMaxConcurrent) out.push({ id: own, tpm: p.keyTpm ?? 0, concurrent: p.keyMaxConcurrent ?? 0 });
  if (p.accountTpm || p.accountMaxConcurrent) out.push({ id: `a:${p.accountId}`, tpm: p.accountTpm ?? 0, concurrent: p.accountMaxConcurrent ?? 0 });
  return out;
}

/** Whether this principal has any token or concurrency limit (else admission is free). */
export const hasTokenLimits = (p: Principal) => !!(p.keyTpm || p.keyMaxConcurrent || p.accountTpm || p.accountMaxConcurrent);

const NOOP: Admission = { headers: {}, release() {} };

/** One verdict, from either store: which subject refused (index), or the tokens used after admission per subject. */
/** The limit a request would break: which subject, which limit, and what is in use there. */
interface Exceeded {
  subject: number;
  what: "tpm" | "concurrent";
  used: number;
}

/** Admitted: the tokens in use per subject (for the headers); or the limit it would break. */
type Verdict = Result<number[], Exceeded>;

const ADMIT_LUA = `
local n, now, member, ttl, win = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local count = #KEYS / 2
local used = {}
for i = 1, count do
  local tl, cl = tonumber(ARGV[4 + 2 * i]), tonumber(ARGV[5 + 2 * i])
  used[i] = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
  if tl > 0 and used[i] + n > tl then return {0, i, used[i], 'tpm'} end
  if cl > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', now)
    local c = redis.call('ZCARD', KEYS[2 * i])
    if c >= cl then return {0, i, c, 'concurrent'} end
  end
end
local out = {1}
for i = 1, count do
  local tl, cl = tonumber(ARGV[4 + 2 * i]), tonumber(ARGV[5 + 2 * i])
  if tl > 0 then
    used[i] = redis.call('INCRBY', KEYS[2 * i - 1], n)
    redis.call('PEXPIRE', KEYS[2 * i - 1], win)
  end
  if cl > 0 then
    redis.call('ZADD', KEYS[2 * i], now + ttl, member)
    redis.call('PEXPIRE', KEYS[2 * i], ttl)
  end
  out[i + 1] = used[i]
end
return out
`;

const RELEASE_LUA = `
local delta, member = tonumber(ARGV[1]), ARGV[2]
for i = 1, #KEYS / 2 do
  if delta ~= 0 and redis.call('EXISTS', KEYS[2 * i - 1]) == 1 then
    local v = redis.call('INCRBY', KEYS[2 * i - 1], delta)
    if v < 0 then redis.call('SET', KEYS[2 * i - 1], 0, 'KEEPTTL') end
  end
  redis.call('ZREM', KEYS[2 * i], member)
end
return 1
`;

interface Memory {
  tokens: Map<string, { window: number; used: number }>;
  slots: Map<string, Map<string, number>>;
  lastWarn: number;
}
const memory = processSingleton("gateway.tokenLimits", (): Memory => ({ tokens: new Map(), slots: new Map(), lastWarn: 0 }));

function admitMemory(subs: Subject[], n: number, window: number, member: string, now: number): Verdict {
  const m = memory();
  const used: number[] = [];
  for (let i = 0; i < subs.length; i++) {
    const s = subs[i]!;
    const t = m.tokens.get(s.id);
    used[i] = t && t.window === window ? t.used : 0;
    if (s.tpm > 0 && used[i]! + n > s.tpm) return { ok: false, error: { subject: i, what: "tpm", used: used[i]! } };
    if (s.concurrent > 0) {
      const slots = m.slots.get(s.id);
      if (slots) for (const [k, exp] of slots) if (exp <= now) slots.delete(k);
      if ((slots?.size ?? 0) >= s.concurrent) return { ok: false, error: { subject: i, what: "concurrent", used: slots!.size } };
    }
  }
  for (let i = 0; i < subs.length; i++) {
    const s = subs[i]!;
    if (s.tpm > 0) {
      used[i] = used[i]! + n;
      m.tokens.set(s.id, { window, used: used[i]! });
    }
    if (s.concurrent > 0) {
      let slots = m.slots.get(s.id);
      if (!slots) m.slots.set(s.id, (slots = new Map()));
      slots.set(member, now + CONCURRENCY_TTL_MS);
    }
  }
  return { ok: true, value: used };
}

function releaseMemory(subs: Subject[], delta: number, window: number, member: string) {
  const m = memory();
  for (const s of subs) {
    const t = m.tokens.get(s.id);
    if (t && t.window === window) t.used = Math.max(0, t.used + delta);
    const slots = m.slots.get(s.id);
    if (slots) {
      slots.delete(member);
      if (!slots.size) m.slots.delete(s.id);
    }
  }
}

function failOpen(err: unknown) {
  metrics().rateLimitFailOpen.inc();
  const m = memory();
  if (Date.now() - m.lastWarn > 10_000) {
    m.lastWarn = Date.now();
    logger().warn({ err: (err as Error).message }, "token/concurrency limit store unavailable; failing open");
  }
}

const keysFor = (subs: Subject[], window: number) => subs.flatMap((s) => [`gw_tpm:${s.id}:${window}`, `gw_cc:${s.id}`]);

/**
 * Reserves `tokens` (the request's worst case) for the principal's key and account. A refusal is
 * a 429 with Retry-After and the x-ratelimit-*-tokens headers OpenAI clients read.
 */
export async function admitTokens(p: Principal, tokens: number): Promise<AdmitResult> {
  const subs = subjects(p);
  if (!subs.length) return { ok: true, value: NOOP };
  const now = Date.now();
  const window = Math.floor(now / WINDOW_MS);
  const resetMs = (window + 1) * WINDOW_MS - now;
  const member = randomUUID();
  const n = Math.max(0, Math.ceil(tokens));
  let verdict: Verdict;
  const redis = await sharedRedis();
  if (redis) {
    try {
      const argv = [n, now, member, CONCURRENCY_TTL_MS, WINDOW_MS * 2, ...subs.flatMap((s) => [s.tpm, s.concurrent])];
      const r = (await redis.eval(ADMIT_LUA, subs.length * 2, ...keysFor(subs, window), ...argv)) as (number | string)[];
      verdict = r[0] === 1 ? { ok: true, value: r.slice(1).map(Number) } : { ok: false, error: { subject: Number(r[1]) - 1, used: Number(r[2]), what: r[3] as "tpm" | "concurrent" } };
    } catch (err) {
      failOpen(err);
      return { ok: true, value: NOOP };
    }
  } else verdict = admitMemory(subs, n, window, member, now);

  if (!verdict.ok) {
    const { subject, what, used } = verdict.error;
    const s = subs[subject]!;
    const who = s.id.startsWith("a:") ? "account" : "key";
    metrics().rateLimited.inc();
    if (what === "concurrent") {
      return { ok: false, error: refusal(`Too many concurrent requests for this ${who} (limit ${s.concurrent}); retry when one finishes.`, 1, {}) };
    }
    const headers = tokenHeaders(s.tpm, s.tpm - used, resetMs);
    if (n > s.tpm) {
      // It can never fit: retrying is pointless.
      return { ok: false, error: { ...refusal(`Request too large: it may use up to ${n} tokens (prompt bound + max output tokens) and this ${who} is limited to ${s.tpm} tokens per minute. Lower the max output tokens or shorten the prompt.`, 0, headers), code: "tokens_exceeded", headers: { ...headers, "x-should-retry": "false" } } };
    }
    return { ok: false, error: refusal(`Tokens per minute limit reached for this ${who}: ${used} of ${s.tpm} in use, this request needs up to ${n}; retry after ${Math.ceil(resetMs / 1000)} s.`, Math.ceil(resetMs / 1000), headers) };
  }

  // The headers describe the tightest TPM subject.
  let headers: Record<string, string> = {};
  let tightest = Infinity;
  const used = verdict.value;
  subs.forEach((s, i) => {
    if (s.tpm > 0 && s.tpm - used[i]! < tightest) {
      tightest = s.tpm - used[i]!;
      headers = tokenHeaders(s.tpm, tightest, resetMs);
    }
  });
  let released = false;
  return {
    ok: true,
    value: {
      headers,
      release(usedTokens) {
        if (released) return;
        released = true;
        const delta = Math.max(0, Math.ceil(usedTokens)) - n;
        if (!redis) return releaseMemory(subs, delta, window, member);
        redis.eval(RELEASE_LUA, subs.length * 2, ...keysFor(subs, window), delta, member).catch(failOpen);
      },
    },
  };
}

function refusal(message: string, retryAfterS: number, headers: Record<string, string>): ApiError {
  return {
    status: 429,
    type: "rate_limit_error",
    code: "rate_limit_exceeded",
    message,
    headers: { ...headers, ...(retryAfterS > 0 ? { "retry-after": String(retryAfterS) } : {}) },
  };
}

export function tokenHeaders(limit: number, remaining: number, resetMs: number): Record<string, string> {
  return {
    "x-ratelimit-limit-tokens": String(limit),
    "x-ratelimit-remaining-tokens": String(Math.max(0, remaining)),
    "x-ratelimit-reset-tokens": `${Math.max(1, Math.ceil(resetMs / 1000))}s`,
  };
}

/** The handler's admission hook for this principal (undefined when it has no such limit: no cost at all). */
export function tokenAdmission(p: Principal): ((tokens: number) => Promise<AdmitResult>) | undefined {
  return hasTokenLimits(p) ? (tokens) => admitTokens(p, tokens) : undefined;
}

/** Tests: forget the in-process state. */
export function resetTokenLimits(): void {
  const m = memory();
  m.tokens.clear();
  m.slots.clear();
}
