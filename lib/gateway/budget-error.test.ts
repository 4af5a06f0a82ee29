/** The 402 of a budget names it, its window, and — when a request's worst case did not fit — what was left. */
import { describe, expect, it } from "vitest";
import { errors } from "./errors";

describe("budget_exceeded", () => {
  const base = { id: "bdgt_1", limitMicroUsd: 50_000_000, window: "2026-11" } as const;

  it("reached: names the budget, its limit and window, and who can raise it", () => {
    const e = errors.budgetExceeded({ ...base, scope: "organisation", period: "month", leftMicroUsd: 0 });
    expect(e).toMatchObject({ status: 402, type: "insufficient_quota", code: "budget_exceeded" });
    expect(e.message).toBe(
      "The organisation's monthly budget ($50.00) is reached for 2026-11. It starts again next month in the organisation's time zone; an owner, admin or billing member can raise it on the Organisation page.",
    );
  });

  it("not reached, but the request's worst case does not fit: says what is left", () => {
    const e = errors.budgetExceeded({ ...base, scope: "key", period: "week", window: "2026-W48", leftMicroUsd: 1_250 });
    expect(e.message).toMatch(/^This API key's weekly budget \(\$50\.00 for 2026-W48\) has \$0\.00125 left, less than this request may cost at its output cap\. It starts again next week/);
  });
});
