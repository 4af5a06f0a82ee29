/** The Overview page in one query set: balance, 30-day spend, recent requests, daily series. */
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { accounts, apiKeys } from "../../db/schema";
import { and, isNull, sql } from "drizzle-orm";
import { dailySpendByModel, listRequests, usageTotals } from "./usage";
import type { BalanceView, OverviewView } from "../views";

export async function accountBalance(db: DbOrTx, accountId: string): Promise<BalanceView> {
  const [a] = await db
    .select({ balance: accounts.balanceMicroUsd, held: accounts.heldMicroUsd, disabled: accounts.disabled })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return { balanceMicroUsd: a?.balance ?? 0, heldMicroUsd: a?.held ?? 0, disabled: a?.disabled ?? false };
}

/** `memberId`: a member's own view (their requests and keys; the balance is not theirs to see: null). */
export async function overview(db: DbOrTx, accountId: string, now = new Date(), memberId?: string): Promise<OverviewView> {
  const from = new Date(now.getTime() - 29 * 86_400_000).toISOString().slice(0, 10);
  const [balance, totals, recent, daily, keys] = await Promise.all([
    accountBalance(db, accountId),
    usageTotals(db, accountId, { from, memberId }),
    listRequests(db, accountId, { limit: 8, memberId }),
    dailySpendByModel(db, accountId, { from, memberId }, now),
    db
      .select({ n: sql<number>`count(*)::int`, lastUsedAt: sql<string | null>`max(${apiKeys.lastUsedAt})` })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt), eq(apiKeys.playground, false), memberId ? eq(apiKeys.createdByUserId, memberId) : undefined)),
  ]);
  const money = memberId ? { balanceMicroUsd: null, heldMicroUsd: null, disabled: balance.disabled } : balance;
  const lastUsedAt = keys[0]?.lastUsedAt ? new Date(keys[0].lastUsedAt).toISOString() : null;
  return { ...money, last30d: totals, recent: recent.items, daily, activeKeys: keys[0]?.n ?? 0, keysLastUsedAt: lastUsedAt };
}
