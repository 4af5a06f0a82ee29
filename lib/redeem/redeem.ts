/**
 * A user redeems a code on Billing. One transaction: the code row is locked (FOR UPDATE), so
 * redemptions of one code run one at a time and a code with N uses credits at most N accounts,
 * and (by default) each person once, whichever of their organisations they redeem it for
 * (decision 0039); the (code, account) unique index and the ledger idempotency key
 * `redeem:<code>:<account>` each make a second credit to one account impossible. The credit is
 * the ledger's ordinary applyLedgerChange. Attempts are limited per person and per address
 * (brute force), each reserved before the code is looked at.
 */
import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { redeemBatches, redeemCodes, redemptions } from "../../db/schema";
import { giveBack, hit, type LimitRule } from "../auth/rate-limit";
import { applyLedgerChange } from "../billing/ledger";
import { formatUsd } from "../billing/money";
import { AppError } from "../app-error";
import { addressBucket } from "../trust-proxy";
import { codeHash, normalizeCode } from "./code";
import type { Result } from "../result";

/** Failed redemptions allowed per person (user) and per client address in 15 minutes. */
export const REDEEM_FAILURE_RULES = {
  user: { limit: 10, windowS: 15 * 60 },
  ip: { limit: 30, windowS: 15 * 60 },
} satisfies Record<string, LimitRule>;

export type RedeemFailure = "unknown" | "expired" | "used_up" | "already_redeemed" | "redeemed_by_you" | "withdrawn";

export const REDEEM_MESSAGES: Record<RedeemFailure, string> = {
  unknown: "This code does not exist. Check it for typos.",
  expired: "This code has expired.",
  used_up: "This code has already been used.",
  already_redeemed: "Your account has already redeemed this code.",
  redeemed_by_you: "You have already redeemed this code for another organisation; it works once per person.",
  withdrawn: "This code has been withdrawn by the gateway's administrators.",
};

/** Why a code did not apply; an expired one says since when. */
export interface RedeemRefusal {
  reason: RedeemFailure;
  expiredAt?: Date;
}

export type RedeemResult = Result<{ amountMicroUsd: number; balanceAfterMicroUsd: number }, RedeemRefusal>;

/** Applies a code to an account, without rate limits (redeemForUser adds them). */
export async function applyCode(db: DB, input: { accountId: string; userId: string | null; code: string }): Promise<RedeemResult> {
  const normalized = normalizeCode(input.code);
  if (!normalized) return { ok: false, error: { reason: "unknown" } };
  const hash = codeHash(normalized);
  return db.transaction(async (tx): Promise<RedeemResult> => {
    const [row] = await tx
      .select({ code: redeemCodes, batch: redeemBatches })
      .from(redeemCodes)
      .innerJoin(redeemBatches, eq(redeemBatches.id, redeemCodes.batchId))
      .where(eq(redeemCodes.codeHash, hash))
      .for("update", { of: redeemCodes });
    if (!row) return { ok: false, error: { reason: "unknown" } };
    const { code, batch } = row;
    if (batch.disabled) return { ok: false, error: { reason: "withdrawn" } };
    if (batch.expiresAt && batch.expiresAt.getTime() <= Date.now()) return { ok: false, error: { reason: "expired", expiredAt: batch.expiresAt } };
    const [mine] = await tx.select({ id: redemptions.id }).from(redemptions).where(and(eq(redemptions.codeId, code.id), eq(redemptions.accountId, input.accountId)));
    if (mine) return { ok: false, error: { reason: "already_redeemed" } };
    if (batch.oncePerUser && input.userId) {
      // Under the code's row lock: parallel redemptions through several organisations see each other.
      const [theirs] = await tx.select({ id: redemptions.id }).from(redemptions).where(and(eq(redemptions.codeId, code.id), eq(redemptions.userId, input.userId))).limit(1);
      if (theirs) return { ok: false, error: { reason: "redeemed_by_you" } };
    }
    if (code.redemptions >= batch.maxRedemptions) return { ok: false, error: { reason: "used_up" } };
    const credit = await applyLedgerChange(tx, {
      accountId: input.accountId,
      deltaMicroUsd: batch.amountMicroUsd,
      kind: "redeem",
      idempotencyKey: `redeem:${code.id}:${input.accountId}`,
      actorUserId: input.userId ?? undefined,
      note: `Redeem code${batch.note ? ` (${batch.note})` : ""}`,
    });
    if (!credit.ok) throw new Error(`redeem credit failed: ${credit.reason}`);
    if (!credit.applied) return { ok: false, error: { reason: "already_redeemed" } };
    await tx.insert(redemptions).values({ codeId: code.id, accountId: input.accountId, userId: input.userId, amountMicroUsd: batch.amountMicroUsd, ledgerEntryId: credit.entryId });
    await tx.update(redeemCodes).set({ redemptions: sql`${redeemCodes.redemptions} + 1` }).where(eq(redeemCodes.id, code.id));
    return { ok: true, value: { amountMicroUsd: batch.amountMicroUsd, balanceAfterMicroUsd: credit.balanceAfterMicroUsd } };
  });
}

/**
 * The console's redemption: rate limits, then applyCode; a refusal is a 400 with a clear message.
 * The attempt is counted before the code is checked, so parallel guesses cannot all pass a limit
 * that none of them has hit yet; a code that works gives its points back (only failures count).
 */
export async function redeemForUser(db: DB, user: { id: string; accountId: string }, code: string, ip: string) {
  const bucket = addressBucket(ip);
  const wait = Math.max(...(await Promise.all([hit("rd_u", REDEEM_FAILURE_RULES.user, user.id), hit("rd_i", REDEEM_FAILURE_RULES.ip, bucket)])));
  if (wait > 0) throw new AppError("rate_limited", `Too many codes that did not work. Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? "s" : ""}.`, { retryAfterS: wait, field: "code" });
  const r = await applyCode(db, { accountId: user.accountId, userId: user.id, code });
  if (!r.ok) {
    const { reason, expiredAt } = r.error;
    const message = reason === "expired" && expiredAt ? `This code expired on ${expiredAt.toISOString().slice(0, 10)}.` : REDEEM_MESSAGES[reason];
    const conflict = reason === "already_redeemed" || reason === "redeemed_by_you" || reason === "used_up";
    throw new AppError(conflict ? "conflict" : "invalid_request", message, { field: "code" });
  }
  await Promise.all([giveBack("rd_u", REDEEM_FAILURE_RULES.user, user.id), giveBack("rd_i", REDEEM_FAILURE_RULES.ip, bucket)]);
  const { amountMicroUsd, balanceAfterMicroUsd } = r.value;
  return { amountMicroUsd, balanceAfterMicroUsd, message: `${formatUsd(amountMicroUsd)} USD added to your balance.` };
}
