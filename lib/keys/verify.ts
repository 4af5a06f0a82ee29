/**
 * API key verification: shape check, sha256, lookup by hash (never a plaintext comparison),
 * then states in a fixed order — revoked, expired, account disabled. Results are cached for a
 * few seconds; revocation and account changes drop cache entries through lib/invalidation.ts.
 */
import { and, eq, or } from "drizzle-orm";
import { getDb } from "../../db/client";
import { accounts, apiKeys, memberships } from "../../db/schema";
import { onInvalidation } from "../invalidation";
import type { Principal } from "./principal";
import { contentLogPolicy } from "./content-log-policy";
import type { ContentLogPolicy } from "../values";
import { hashKey, looksLikeKey } from "./generate";
import { memberScope } from "./visibility";
import { afterReply } from "../after-reply";
import { processSingleton } from "../process-singleton";
import type { Result } from "../result";

export type KeyRefusal = "malformed" | "unknown" | "revoked" | "expired" | "account_disabled" | "not_cached";
export type VerifyResult = Result<Principal, KeyRefusal>;

interface CachedKey {
  keyId: string;
  accountId: string;
  /** Which secret matched: the current one, or the previous one during a roll's grace period. */
  matched: "current" | "previous";
  previousExpiresAt: number | null;
  revoked: boolean;
  expiresAt: number | null;
  accountDisabled: boolean;
  keyAllowedModels: string[] | null;
  accountAllowedModels: string[] | null;
  keyLimitMicroUsd: number | null;
  keyRpm: number | null;
  accountRpm: number | null;
  keyTpm: number | null;
  keyMaxConcurrent: number | null;
  accountTpm: number | null;
  accountMaxConcurrent: number | null;
  storeResponses: boolean;
  contentLog: ContentLogPolicy | null;
  memberScope: string | null;
  responseCache: "on" | "all" | null;
  cachedAt: number;
}

const TTL_MS = 5_000;
const MAX_ENTRIES = 50_000;
const cache = processSingleton("gateway.keyCache", () => {
  const m = new Map<string, CachedKey | "unknown">();
  onInvalidation((msg) => {
    if (msg.kind === "keys") {
      if (msg.hashes?.length) for (const h of msg.hashes) m.delete(h);
      else m.clear();
      // A hash may be cached as "unknown" after a roll: drop negatives too.
      for (const [h, v] of m) if (v === "unknown") m.delete(h);
    } else if (msg.kind === "accounts") {
      if (!msg.ids?.length) m.clear();
      else for (const [h, v] of m) if (v !== "unknown" && msg.ids.includes(v.accountId)) m.delete(h);
    }
  });
  return m;
});

async function load(hash: string): Promise<CachedKey | "unknown"> {
  const db = await getDb();
  const rows = await db
    .select({ key: apiKeys, account: accounts, role: memberships.role })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .leftJoin(memberships, and(eq(memberships.accountId, apiKeys.accountId), eq(memberships.userId, apiKeys.createdByUserId)))
    .where(and(or(eq(apiKeys.hash, hash), eq(apiKeys.previousHash, hash)), eq(apiKeys.playground, false)))
    .limit(1);
  const row = rows[0];
  if (!row) return "unknown";
  const { key, account, role } = row;
  return {
    keyId: key.id,
    accountId: key.accountId,
    matched: key.hash === hash ? "current" : "previous",
    previousExpiresAt: key.previousExpiresAt?.getTime() ?? null,
    revoked: key.revokedAt !== null,
    expiresAt: key.expiresAt?.getTime() ?? null,
    accountDisabled: account.disabled,
    keyAllowedModels: key.allowedModels?.length ? key.allowedModels : null,
    accountAllowedModels: account.allowedModels ?? null,
    keyLimitMicroUsd: key.limitMicroUsd,
    keyRpm: key.rpm,
    accountRpm: account.rpm,
    keyTpm: key.tpm,
    keyMaxConcurrent: key.maxConcurrent,
    accountTpm: account.tpm,
    accountMaxConcurrent: account.maxConcurrent,
    storeResponses: account.storeResponses,
    contentLog: contentLogPolicy(account, key.contentLogMode),
    memberScope: memberScope(key.createdByUserId, role),
    responseCache: key.responseCache ?? null,
    cachedAt: Date.now(),
  };
}

/**
 * Hashes that matched no key, for a moment: a client retrying with a wrong key (or a flood of
 * the same one) costs no query. Kept apart from the valid keys so a flood of random keys can
 * only ever clear this map, never push valid keys out of theirs. A key created after its hash
 * was cached here is announced (lib/keys/manage.ts announceNewKey), which empties this map on
 * every instance; the TTL bounds the wait if that message is lost.
 */
const NEGATIVE_TTL_MS = 10_000;
const MAX_NEGATIVE = 10_000;
const negatives = processSingleton("gateway.keyNegativeCache", () => {
  const m = new Map<string, number>();
  onInvalidation((msg) => {
    if (msg.kind === "keys") m.clear();
  });
  return m;
});

export interface VerifyOptions {
  /** Only hashes the cache has seen valid are looked up ("not_cached" otherwise): for addresses refused for failing too often. */
  cachedOnly?: boolean;
}

export async function verifyKey(candidate: string | undefined | null, now = Date.now(), opts: VerifyOptions = {}): Promise<VerifyResult> {
  if (!candidate || !looksLikeKey(candidate)) return { ok: false, error: "malformed" };
  const hash = hashKey(candidate);
  const c = cache();
  let entry = c.get(hash);
  if (!entry || (entry !== "unknown" && now - entry.cachedAt > TTL_MS) || entry === "unknown") {
    const neg = negatives();
    const missAt = neg.size ? neg.get(hash) : undefined;
    if (missAt !== undefined && now - missAt < NEGATIVE_TTL_MS) return { ok: false, error: "unknown" };
    // A hash never seen valid here is refused; one seen valid (even if stale) is looked up again.
    if (opts.cachedOnly && !entry) return { ok: false, error: "not_cached" };
    entry = await load(hash);
    if (entry !== "unknown") {
      if (c.size >= MAX_ENTRIES) c.clear();
      c.set(hash, entry);
      neg.delete(hash);
    } else {
      if (neg.size >= MAX_NEGATIVE) neg.clear();
      neg.set(hash, now);
    }
  }
  if (entry === "unknown") return { ok: false, error: "unknown" };
  if (entry.revoked) return { ok: false, error: "revoked" };
  if (entry.expiresAt !== null && entry.expiresAt <= now) return { ok: false, error: "expired" };
  if (entry.matched === "previous" && (entry.previousExpiresAt === null || entry.previousExpiresAt <= now)) {
    return { ok: false, error: "expired" };
  }
  if (entry.accountDisabled) return { ok: false, error: "account_disabled" };
  return {
    ok: true,
    value: {
      accountId: entry.accountId,
      keyId: entry.keyId,
      userId: null,
      source: "api",
      keyAllowedModels: entry.keyAllowedModels,
      accountAllowedModels: entry.accountAllowedModels,
      keyLimitMicroUsd: entry.keyLimitMicroUsd,
      keyRpm: entry.keyRpm,
      accountRpm: entry.accountRpm,
      keyTpm: entry.keyTpm,
      keyMaxConcurrent: entry.keyMaxConcurrent,
      accountTpm: entry.accountTpm,
      accountMaxConcurrent: entry.accountMaxConcurrent,
      storeResponses: entry.storeResponses,
      contentLog: entry.contentLog,
      memberScope: entry.memberScope,
      responseCache: entry.responseCache,
    },
  };
}

const lastStamped = new Map<string, number>();

/** Best-effort `lastUsedAt`, at most once a minute per key, never awaited by the request. */
export function stampLastUsed(keyId: string): void {
  const now = Date.now();
  if ((lastStamped.get(keyId) ?? 0) > now - 60_000) return;
  lastStamped.set(keyId, now);
  afterReply(getDb().then((db) => db.update(apiKeys).set({ lastUsedAt: new Date(now) }).where(eq(apiKeys.id, keyId))));
}
