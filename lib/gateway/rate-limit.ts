/**
 * Requests-per-minute limits per key (DEFAULT_KEY_RPM unless the key has its own) and per
 * account (when set). Shared across instances through Redis when REDIS_URL is set, in-process
 * otherwise. A Redis failure never blocks a request: the limit fails open at once (no offline
 * queue), logged and counted (docs/design.md, "Redis unavailable").
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "../env";
import { logger } from "../logger";
import { metrics } from "../metrics";
import type { Principal } from "./types";
import { processSingleton } from "../process-singleton";
import { closeSharedRedis, sharedRedis } from "../redis";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetS: number;
}

interface State {
  redis: import("ioredis").Redis | null;
  limiters: Map<number, RateLimiterAbstract>;
  lastWarn: number;
}

const slot = processSingleton("gateway.rateLimit", () => ({ current: undefined as State | undefined }));

async function state(): Promise<State> {
  const g = slot();
  if (!g.current) {
    const redis = await sharedRedis();
    g.current ??= { redis, limiters: new Map(), lastWarn: 0 };
  }
  return g.current;
}

function limiterFor(s: State, points: number): RateLimiterAbstract {
  let l = s.limiters.get(points);
  if (!l) {
    l = s.redis
      ? new RateLimiterRedis({ storeClient: s.redis, points, duration: 60, keyPrefix: `gw_rl_${points}` })
      : new RateLimiterMemory({ points, duration: 60 });
    s.limiters.set(points, l);
  }
  return l;
}

async function consume(s: State, id: string, points: number): Promise<RateDecision> {
  try {
    const r = await limiterFor(s, points).consume(id);
    return { allowed: true, limit: points, remaining: r.remainingPoints, resetS: Math.ceil(r.msBeforeNext / 1000) };
  } catch (err) {
    if (err instanceof RateLimiterRes) {
      return { allowed: false, limit: points, remaining: 0, resetS: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
    }
    metrics().rateLimitFailOpen.inc();
    if (Date.now() - s.lastWarn > 10_000) {
      s.lastWarn = Date.now();
      logger().warn({ err: (err as Error).message }, "rate limit store unavailable; failing open");
    }
    return { allowed: true, limit: points, remaining: points, resetS: 60 };
  }
}

/** Consumes one request for the principal's key (or console user) and account; the tighter answer wins. */
export async function checkRateLimit(p: Principal): Promise<RateDecision> {
  const s = await state();
  const subject = p.keyId ? `k:${p.keyId}` : `u:${p.userId ?? p.accountId}`;
  const key = await consume(s, subject, p.keyRpm ?? env().DEFAULT_KEY_RPM);
  if (!key.allowed || !p.accountRpm) return key;
  const account = await consume(s, `a:${p.accountId}`, p.accountRpm);
  return !account.allowed || account.remaining < key.remaining ? account : key;
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    "x-ratelimit-limit-requests": String(d.limit),
    "x-ratelimit-remaining-requests": String(Math.max(0, d.remaining)),
    "x-ratelimit-reset-requests": `${d.resetS}s`,
  };
}

/** Connects to Redis at start (waiting at most a second), so the first requests are limited too. */
export async function warmRateLimiter(): Promise<void> {
  const s = await state();
  const redis = s.redis;
  if (!redis || redis.status === "ready") return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, 1_000);
    redis.once("ready", () => {
      clearTimeout(t);
      resolve();
    });
  });
  if ((redis.status as string) !== "ready") logger().warn("Redis is not reachable at start; rate limits fail open until it is");
}

export async function closeRateLimiter(): Promise<void> {
  slot().current = undefined;
  await closeSharedRedis();
}
