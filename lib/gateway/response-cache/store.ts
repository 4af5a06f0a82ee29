/**
 * Where cached answers live (decision 0057): Redis when REDIS_URL is set (shared by every
 * instance, expiry by Redis), else the `response_cache` table (serverless-safe; expired rows are
 * never read and are deleted by the retention job). Never in-process only: a serverless
 * instance's memory is gone with it, and instances would answer differently. Values are sealed
 * (lib/crypto.ts): a cached answer is as private as a stored response.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { responseCache } from "../../../db/schema";
import { decryptSecret, encryptSecret } from "../../crypto";
import { logger } from "../../logger";
import { sharedRedis } from "../../redis";

export interface CacheStore {
  get(key: string, accountId: string): Promise<string | null>;
  put(key: string, accountId: string, value: string, ttlS: number): Promise<void>;
}

const REDIS_PREFIX = "gw_rc:";

export function cacheStore(db: DB): CacheStore {
  return {
    async get(key, accountId) {
      try {
        const redis = await sharedRedis();
        if (redis) {
          const v = await redis.get(REDIS_PREFIX + key);
          return v === null ? null : decryptSecret(v);
        }
        const [row] = await db
          .select({ value: responseCache.value })
          .from(responseCache)
          .where(and(eq(responseCache.key, key), eq(responseCache.accountId, accountId), gt(responseCache.expiresAt, new Date())));
        return row ? decryptSecret(row.value) : null;
      } catch (err) {
        // A cache that cannot answer is a miss, never an error for the client.
        logger().warn({ err }, "response cache read failed; treated as a miss");
        return null;
      }
    },
    async put(key, accountId, value, ttlS) {
      const sealed = encryptSecret(value);
      const redis = await sharedRedis();
      if (redis) {
        await redis.set(REDIS_PREFIX + key, sealed, "EX", ttlS);
        return;
      }
      const expiresAt = new Date(Date.now() + ttlS * 1000);
      await db.insert(responseCache).values({ key, accountId, value: sealed, expiresAt }).onConflictDoUpdate({ target: responseCache.key, set: { value: sealed, expiresAt } });
    },
  };
}

/** The retention job's part: expired rows of the table (Redis expires its own). */
export async function deleteExpiredCacheEntries(db: DB, now = Date.now(), batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const gone = await db.execute(sql`
      delete from response_cache where key in (select key from response_cache where expires_at < ${new Date(now)} limit ${batch})`);
    const n = Number((gone as unknown as { rowCount?: number; affectedRows?: number }).rowCount ?? (gone as unknown as { affectedRows?: number }).affectedRows ?? 0);
    total += n;
    if (n < batch) return total;
  }
}


