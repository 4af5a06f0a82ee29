/**
 * Rolling a key: a new secret for the same key id (same name, scope, limits, spend and
 * history). The old secret keeps working until `previousExpiresAt`, so a deployment can switch
 * without downtime; a grace of 0 ends it at once. Rolling again during a grace period replaces
 * the previous secret: only the latest old secret is ever honoured.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { notifyInvalidation } from "../invalidation";
import { generateKey } from "./generate";
import type { Result } from "../result";

/** Longest grace a caller may ask for: 30 days. */
export const MAX_ROLL_GRACE_S = 30 * 24 * 3600;

export interface RolledKey {
  id: string;
  /** The new full key: shown once. */
  key: string;
  prefix: string;
  last4: string;
  previousExpiresAt: Date | null;
}

export type RollResult = Result<RolledKey, "not_found" | "revoked" | "expired">;

export async function rollKey(
  db: DbOrTx,
  input: { keyId: string; accountId: string; graceSeconds: number; now?: Date },
): Promise<RollResult> {
  const now = input.now ?? new Date();
  const grace = Math.max(0, Math.min(MAX_ROLL_GRACE_S, Math.floor(input.graceSeconds)));
  const [current] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.accountId, input.accountId), eq(apiKeys.playground, false)));
  if (!current) return { ok: false, error: "not_found" };
  if (current.revokedAt) return { ok: false, error: "revoked" };
  if (current.expiresAt && current.expiresAt <= now) return { ok: false, error: "expired" };
  const g = generateKey();
  const previousExpiresAt = grace > 0 ? new Date(now.getTime() + grace * 1000) : null;
  const rows = await db
    .update(apiKeys)
    .set({
      hash: g.hash,
      prefix: g.prefix,
      last4: g.last4,
      previousHash: grace > 0 ? current.hash : null,
      previousExpiresAt,
    })
    // Only if nobody rolled or revoked it in between (compare-and-set on the hash).
    .where(and(eq(apiKeys.id, current.id), eq(apiKeys.hash, current.hash), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (!rows.length) return { ok: false, error: "not_found" };
  // Caches hold the old hash as "current, no grace"; drop it and the secret it displaced.
  await notifyInvalidation({ kind: "keys", hashes: [current.hash, current.previousHash].filter(Boolean) as string[] });
  return { ok: true, value: { id: current.id, key: g.key, prefix: g.prefix, last4: g.last4, previousExpiresAt } };
}
