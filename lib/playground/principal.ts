/**
 * The gateway Principal of a signed-in console user: the playground calls the public API's
 * routes with the user's account (its allow-list and rate limit), no key, source "playground",
 * so billing, request logs and limits are exactly the public API's.
 */
import { eq } from "drizzle-orm";
import { getDb } from "../../db/client";
import { accounts } from "../../db/schema";
import type { SessionUser } from "../auth/session";
import type { Principal } from "../gateway/types";

export type PlaygroundPrincipal = { ok: true; principal: Principal } | { ok: false; reason: "account_disabled" | "no_account" };

export async function playgroundPrincipal(user: SessionUser): Promise<PlaygroundPrincipal> {
  const db = await getDb();
  const [acct] = await db
    .select({ allowed: accounts.allowedModels, rpm: accounts.rpm, tpm: accounts.tpm, maxConcurrent: accounts.maxConcurrent, disabled: accounts.disabled, storeResponses: accounts.storeResponses })
    .from(accounts)
    .where(eq(accounts.id, user.accountId));
  if (!acct) return { ok: false, reason: "no_account" };
  if (acct.disabled) return { ok: false, reason: "account_disabled" };
  return {
    ok: true,
    principal: {
      accountId: user.accountId,
      keyId: null,
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
    },
  };
}
