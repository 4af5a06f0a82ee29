/**
 * The process's Redis connection (REDIS_URL), shared by the API rate and token limits
 * (lib/gateway/rate-limit.ts, token-limits.ts) and the sign-in limits (lib/auth/rate-limit.ts); null without
 * REDIS_URL. Commands fail at once while disconnected (no offline queue), so a limit fails open
 * instead of waiting; errors are reported by the callers, throttled.
 */
import type { Redis } from "ioredis";
import { env } from "./env";
import { processSingleton } from "./process-singleton";

const slot = processSingleton("gateway.redis", () => ({ current: undefined as Promise<Redis | null> | undefined }));

export function sharedRedis(): Promise<Redis | null> {
  const g = slot();
  return (g.current ??= (async () => {
    const url = env().REDIS_URL;
    if (!url) return null;
    const { Redis } = await import("ioredis");
    const redis = new Redis(url, {
      enableOfflineQueue: false, // fail at once while disconnected instead of queueing requests
      maxRetriesPerRequest: 0,
      connectTimeout: 500,
      retryStrategy: (times) => Math.min(times * 250, 2_000),
    });
    redis.on("error", () => {}); // reported per request by the callers, throttled
    return redis;
  })());
}

export async function closeSharedRedis(): Promise<void> {
  const g = slot();
  const p = g.current;
  g.current = undefined;
  (await p)?.disconnect();
}
