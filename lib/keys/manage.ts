/** Creating and revoking keys: shared by the admin CLI and the console. */
import { and, eq, isNull, or } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { newId } from "../ids";
import { generateKey, hashKey, looksLikeKey } from "./generate";
import { notifyInvalidation } from "../invalidation";
import type { CreatedKey } from "../views";
export type { CreatedKey };

export interface CreateKeyInput {
  accountId: string;
  name?: string;
  allowedModels?: string[] | null;
  limitMicroUsd?: number | null;
  rpm?: number | null;
  tpm?: number | null;
  maxConcurrent?: number | null;
  /** The exact response cache (docs/guardrails.md): `on`, or `all` for temperature > 0 too; null = only when a request asks. */
  responseCache?: "on" | "all" | null;
  expiresAt?: Date | null;
  createdByUserId?: string | null;
}

export async function createKey(db: DbOrTx, input: CreateKeyInput): Promise<CreatedKey> {
  const g = generateKey();
  const id = newId("key");
  await db.insert(apiKeys).values({
    id,
    accountId: input.accountId,
    name: input.name ?? "",
    hash: g.hash,
    prefix: g.prefix,
    last4: g.last4,
    allowedModels: input.allowedModels?.length ? input.allowedModels : null,
    limitMicroUsd: input.limitMicroUsd ?? null,
    rpm: input.rpm ?? null,
    tpm: input.tpm ?? null,
    maxConcurrent: input.maxConcurrent ?? null,
    responseCache: input.responseCache ?? null,
    expiresAt: input.expiresAt ?? null,
    createdByUserId: input.createdByUserId ?? null,
  });
  return { id, key: g.key, prefix: g.prefix, last4: g.last4 };
}

/**
 * Tells every instance a key now exists, after its transaction committed: their caches may
 * hold its hash as unknown (lib/keys/verify.ts caches failed lookups for a moment).
 */
export async function announceNewKey(key: { key: string }): Promise<void> {
  await notifyInvalidation({ kind: "keys", hashes: [hashKey(key.key)] });
}

/**
 * Revokes by key id or by the full key. `accountId` scopes the lookup for console callers.
 * Returns the revoked key's id, or null when nothing matched.
 */
export async function revokeKey(db: DbOrTx, idOrKey: string, accountId?: string): Promise<string | null> {
  const match = looksLikeKey(idOrKey)
    ? or(eq(apiKeys.hash, hashKey(idOrKey)), eq(apiKeys.previousHash, hashKey(idOrKey)))
    : eq(apiKeys.id, idOrKey);
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(match, isNull(apiKeys.revokedAt), accountId ? eq(apiKeys.accountId, accountId) : undefined))
    .returning({ id: apiKeys.id, hash: apiKeys.hash, previousHash: apiKeys.previousHash });
  if (!rows.length) return null;
  await notifyInvalidation({ kind: "keys", hashes: [rows[0]!.hash, rows[0]!.previousHash].filter(Boolean) as string[] });
  return rows[0]!.id;
}
