/**
 * The gateway Principal of a signed-in console user: the playground calls the public API's
 * routes with the user's account (its allow-list and rate limit), source "playground", so billing,
 * request logs and limits are exactly the public API's. It spends through the member's hidden
 * playground key (one per member and organisation, made on first use), so the member's monthly
 * cap and every budget count playground spend like a key's (the api_keys trigger, migration 0013).
 */
import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { getDb, type DB } from "../../db/client";
import { accounts, apiKeys } from "../../db/schema";
import { newId } from "../ids";
import { memberScope } from "../keys/visibility";
import { contentLogPolicy } from "../keys/content-log-policy";
import type { SessionUser } from "../auth/session";
import type { Principal } from "../gateway/types";
import type { Result } from "../result";

export type PlaygroundPrincipal = Result<Principal, "account_disabled" | "no_account">;

export async function playgroundPrincipal(user: SessionUser): Promise<PlaygroundPrincipal> {
  const db = await getDb();
  const [acct] = await db
    .select({ allowed: accounts.allowedModels, rpm: accounts.rpm, tpm: accounts.tpm, maxConcurrent: accounts.maxConcurrent, disabled: accounts.disabled, storeResponses: accounts.storeResponses, contentLogMode: accounts.contentLogMode, contentLogRedact: accounts.contentLogRedact, contentLogBuiltins: accounts.contentLogBuiltins })
    .from(accounts)
    .where(eq(accounts.id, user.accountId));
  if (!acct) return { ok: false, error: "no_account" };
  if (acct.disabled) return { ok: false, error: "account_disabled" };
  return {
    ok: true,
    value: {
      accountId: user.accountId,
      keyId: await playgroundKey(db, user.accountId, user.id),
      userId: user.id,
      source: "playground",
      keyAllowedModels: null,
      accountAllowedModels: acct.allowed ?? null,
      keyLimitMicroUsd: null,
      keyRpm: null,
      accountRpm: acct.rpm ?? null,
      accountTpm: acct.tpm ?? null,
      accountMaxConcurrent: acct.maxConcurrent ?? null,
      storeResponses: acct.storeResponses,
      contentLog: contentLogPolicy(acct, null),
      memberScope: memberScope(user.id, user.orgRole),
    },
  };
}

/** The member's live playground key in the organisation, made on first use. */
async function playgroundKey(db: DB, accountId: string, userId: string): Promise<string> {
  const live = and(eq(apiKeys.accountId, accountId), eq(apiKeys.createdByUserId, userId), eq(apiKeys.playground, true), isNull(apiKeys.revokedAt));
  const [found] = await db.select({ id: apiKeys.id }).from(apiKeys).where(live);
  if (found) return found.id;
  // The hash is of no secret (random bytes, not sha256 of a key), so no bearer ever matches it.
  await db
    .insert(apiKeys)
    .values({ id: newId("key"), accountId, name: "Playground", hash: `playground:${randomBytes(24).toString("hex")}`, prefix: "playground", last4: "", createdByUserId: userId, playground: true })
    .onConflictDoNothing();
  const [made] = await db.select({ id: apiKeys.id }).from(apiKeys).where(live);
  return made!.id;
}
