/**
 * Spending limits the database enforces in the api_keys trigger (migrations 0008 and 0013):
 * a member's monthly cap (SQLSTATE GC001) and budgets (GC002). An increase of a key's holds that
 * would pass either raises, and the whole statement rolls back; the money paths turn that into
 * a refusal here.
 */
import type { BudgetPeriod, BudgetScope } from "../../db/schema";
import type { Refusal } from "./port";

export const MEMBER_CAP_SQLSTATE = "GC001";
export const BUDGET_SQLSTATE = "GC002";

/** The refusal when `err` is the database refusing a cap or a budget, else null. */
export function spendLimitRefusal(err: unknown): Refusal | null {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    const message = String(e.message ?? "");
    if (e.code === MEMBER_CAP_SQLSTATE) {
      const m = /member_cap_exceeded:(\d+)/.exec(message);
      return { reason: "member_cap_exceeded", capMicroUsd: m ? Number(m[1]) : 0 };
    }
    if (e.code === BUDGET_SQLSTATE) {
      const m = /budget_exceeded:([^:]+):([a-z]+):([a-z]+):(\d+):([^:\s]+):(\d+)/.exec(message);
      if (m) return { reason: "budget_exceeded", budget: { id: m[1]!, scope: m[2] as BudgetScope, period: m[3] as BudgetPeriod, limitMicroUsd: Number(m[4]), window: m[5]!, leftMicroUsd: Number(m[6]) } };
    }
  }
  return null;
}

