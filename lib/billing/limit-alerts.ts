/**
 * The alert of a refused request (decision 0029): a budget's hard limit or a member's monthly
 * cap has stopped a request, so the owners hear of it even when no settlement crossed 100 %
 * (holds are worst cases: a budget can refuse at 97 % spent). One alert per budget window or
 * member month: the dedupe key is the one the api_keys trigger uses for `budget_100`
 * (migration 0013), so the crossing and the refusal alert once between them.
 */
import { and, eq } from "drizzle-orm";
import type { DB, DbOrTx } from "../../db/client";
import { alerts, apiKeys, budgets, memberships, type AlertKind } from "../../db/schema";
import { newId } from "../ids";
import type { Refusal } from "./port";

export async function raiseLimitAlert(db: DB, accountId: string, keyId: string | null, r: Refusal): Promise<void> {
  if (r.reason === "budget_exceeded") {
    const b = r.budget;
    const [row] = await db.select({ userId: budgets.userId, keyId: budgets.keyId, spent: budgets.spentMicroUsd }).from(budgets).where(eq(budgets.id, b.id));
    await raiseBillingAlert(db, accountId, "budget_100", `budget_100:${b.id}:${b.window}`, {
      budget_id: b.id,
      scope: b.scope,
      period: b.period,
      window: b.window,
      limit_micro_usd: b.limitMicroUsd,
      spent_micro_usd: row?.spent ?? 0,
      user_id: row?.userId ?? null,
      key_id: row?.keyId ?? null,
      refused: true,
    });
  } else if (r.reason === "member_cap_exceeded" && keyId) {
    const [m] = await db
      .select({ userId: memberships.userId, month: memberships.capMonth, spent: memberships.monthSpentMicroUsd })
      .from(apiKeys)
      .innerJoin(memberships, and(eq(memberships.accountId, apiKeys.accountId), eq(memberships.userId, apiKeys.createdByUserId)))
      .where(eq(apiKeys.id, keyId));
    if (!m) return;
    await raiseBillingAlert(db, accountId, "member_cap", `member_cap:${accountId}:${m.userId}:${m.month ?? ""}`, {
      user_id: m.userId,
      month: m.month,
      spent_micro_usd: m.spent,
      limit_micro_usd: r.capMicroUsd,
    });
  }
}

/**
 * An alert the money side raises (decision 0029: one row per crossing, keyed by `dedupeKey`).
 * lib/alerts' raiseAlert sits above lib/billing, so billing writes its own row the same way.
 */
export async function raiseBillingAlert(db: DbOrTx, accountId: string, kind: AlertKind, dedupeKey: string, data: Record<string, unknown>) {
  await db.insert(alerts).values({ id: newId("alert"), accountId, kind, dedupeKey, data }).onConflictDoNothing({ target: alerts.dedupeKey });
}

