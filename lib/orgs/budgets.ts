/**
 * Budgets (decision 0032): an organisation's owners, admins and billing members set, per
 * organisation, member or key, a spend limit over a day, week or month in the organisation's
 * time zone — a hard limit that refuses (402 budget_exceeded) and/or a soft limit that only
 * alerts. The database enforces them (the api_keys trigger of migration 0013); this module
 * keeps the rows and shows where each stands.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, apiKeys, budgets, BUDGET_PERIODS, BUDGET_SCOPES, memberships, users, type BudgetPeriod, type BudgetScope } from "../../db/schema";
import { auditDiff, recordAudit } from "../audit/record";
import { AppError } from "../app-error";
import { parseUsd } from "../billing/money";
import { askLeasesBack } from "../billing/text-lease";
import { newId } from "../ids";
import type { Actor } from "./invites";
import type { BudgetView } from "../views";
export type { BudgetView };

const usd = z
  .union([z.literal(""), z.null(), z.string().trim().refine((s) => parseUsd(s) !== null, "Enter a dollar amount such as 25 or 0.50.")])
  .optional()
  .transform((v) => (v ? parseUsd(v)! : null));

export const budgetSchema = z
  .object({
    scope: z.enum(BUDGET_SCOPES),
    /** The member (scope "member"). */
    userId: z.string().trim().min(1).max(100).optional(),
    /** The key (scope "key"). */
    keyId: z.string().trim().min(1).max(100).optional(),
    period: z.enum(BUDGET_PERIODS),
    /** Dollars; requests past it are refused. */
    limitUsd: usd,
    /** Dollars; crossing it alerts. */
    softLimitUsd: usd,
  })
  .refine((b) => b.limitUsd !== null || b.softLimitUsd !== null, { message: "Set a limit, a soft limit, or both.", path: ["limitUsd"] })
  .refine((b) => b.limitUsd === null || b.softLimitUsd === null || b.softLimitUsd <= b.limitUsd, { message: "The soft limit warns before the limit: make it lower.", path: ["softLimitUsd"] })
  .refine((b) => b.scope !== "member" || !!b.userId, { message: "Choose the member.", path: ["userId"] })
  .refine((b) => b.scope !== "key" || !!b.keyId, { message: "Choose the key.", path: ["keyId"] });

/**
 * The current window's name (`2026-11-27`, `2026-W48`, `2026-11`) for a period in a time zone,
 * as the api_keys trigger names it (migration 0013), and the window's start.
 */
const windowName = (period: SQL, tz: SQL) => sql`case ${period} when 'day' then to_char(now() at time zone ${tz}, 'YYYY-MM-DD')
  when 'week' then to_char(now() at time zone ${tz}, 'IYYY-"W"IW') else to_char(now() at time zone ${tz}, 'YYYY-MM') end`;
const windowStart = (period: SQL, tz: SQL) => sql`(date_trunc(${period}, now() at time zone ${tz}) at time zone ${tz})`;

export async function listBudgets(db: DbOrTx, accountId: string, only?: { userId: string }): Promise<BudgetView[]> {
  const r = (await db.execute(sql`
    select b.id, b.scope, b.period, b.user_id, b.key_id, b.limit_micro_usd, b.soft_limit_micro_usd, b."window" as stored_window,
           b.spent_micro_usd, b.held_micro_usd, coalesce(u.email, k.name) as target,
           ${windowName(sql`b.period`, sql`a.time_zone`)} as now_window,
           ((date_trunc(b.period, now() at time zone a.time_zone) + ('1 ' || b.period)::interval) at time zone a.time_zone) as resets_at
      from budgets b join accounts a on a.id = b.account_id
      left join users u on u.id = b.user_id
      left join api_keys k on k.id = b.key_id
     where b.account_id = ${accountId}
       ${only ? sql`and (b.scope = 'organisation' or b.user_id = ${only.userId} or k.created_by_user_id = ${only.userId})` : sql``}
     order by case b.scope when 'organisation' then 0 when 'member' then 1 else 2 end, target nulls first, b.period`)) as unknown as {
    rows: {
      id: string;
      scope: BudgetScope;
      period: BudgetPeriod;
      user_id: string | null;
      key_id: string | null;
      limit_micro_usd: string | number | null;
      soft_limit_micro_usd: string | number | null;
      stored_window: string;
      now_window: string;
      spent_micro_usd: string | number;
      held_micro_usd: string | number;
      target: string | null;
      resets_at: Date | string;
    }[];
  };
  const num = (v: string | number | null) => (v === null ? null : Number(v));
  return r.rows.map((b) => ({
    id: b.id,
    scope: b.scope,
    period: b.period,
    userId: b.user_id,
    keyId: b.key_id,
    target: b.target,
    limitMicroUsd: num(b.limit_micro_usd),
    softLimitMicroUsd: num(b.soft_limit_micro_usd),
    // A window nothing has been spent in yet still shows last window's row: it starts from zero.
    spentMicroUsd: b.stored_window === b.now_window ? Number(b.spent_micro_usd) : 0,
    heldMicroUsd: Number(b.held_micro_usd),
    window: b.now_window,
    resetsAt: new Date(b.resets_at).toISOString(),
  }));
}

/**
 * Creates the budget of a target and period, or changes its limits. A new budget starts from what
 * was already spent in the current window (request log), so "$50 this month" means this month.
 */
export async function setBudget(db: DB, actor: Actor, body: z.infer<typeof budgetSchema>): Promise<BudgetView> {
  const userId = body.scope === "member" ? body.userId! : null;
  const keyId = body.scope === "key" ? body.keyId! : null;
  const id = await db.transaction(async (tx) => {
    if (userId) {
      const [m] = await tx.select({ u: memberships.userId }).from(memberships).where(and(eq(memberships.accountId, actor.accountId), eq(memberships.userId, userId)));
      if (!m) throw new AppError("not_found", "No such member in this organisation.", { field: "userId" });
    }
    if (keyId) {
      const [k] = await tx.select({ id: apiKeys.id }).from(apiKeys).where(and(eq(apiKeys.accountId, actor.accountId), eq(apiKeys.id, keyId), eq(apiKeys.playground, false)));
      if (!k) throw new AppError("not_found", "No such key in this organisation.", { field: "keyId" });
    }
    // The organisation's row first (the money paths' lock order): no settlement moves this
    // budget's figures while its starting spend is read.
    const [a] = await tx.update(accounts).set({ hasBudgets: true }).where(eq(accounts.id, actor.accountId)).returning({ tz: accounts.timeZone });
    const existing = await tx
      .select({ id: budgets.id, limitMicroUsd: budgets.limitMicroUsd, softLimitMicroUsd: budgets.softLimitMicroUsd })
      .from(budgets)
      .where(and(eq(budgets.accountId, actor.accountId), eq(budgets.scope, body.scope), eq(budgets.period, body.period), userId ? eq(budgets.userId, userId) : sql`true`, keyId ? eq(budgets.keyId, keyId) : sql`true`));
    const limits = { limitMicroUsd: body.limitUsd, softLimitMicroUsd: body.softLimitUsd };
    let budgetId: string;
    if (existing[0]) {
      budgetId = existing[0].id;
      await tx.update(budgets).set(limits).where(eq(budgets.id, budgetId));
    } else {
      budgetId = newId("budget");
      const { window, spent } = await spentSoFar(tx, actor.accountId, a!.tz, body.period, { userId, keyId });
      await tx.insert(budgets).values({ id: budgetId, accountId: actor.accountId, scope: body.scope, userId, keyId, period: body.period, ...limits, window, spentMicroUsd: spent });
    }
    await recordAudit(tx, { accountId: actor.accountId, actorUserId: actor.id, actor: actor.email, action: existing[0] ? "budget.update" : "budget.create", targetType: "budget", targetId: budgetId, details: { accountId: actor.accountId, scope: body.scope, userId, keyId, period: body.period, ...limits, ...(existing[0] ? auditDiff(existing[0], limits) : { before: null, after: limits }) } });
    return budgetId;
  });
  // Leases of the organisation's balance were taken before this limit: hand them back so the
  // next request takes a fresh hold, which the budget judges (as for members' caps).
  await askLeasesBack(actor.accountId);
  return (await listBudgets(db, actor.accountId)).find((b) => b.id === id)!;
}

export async function deleteBudget(db: DB, actor: Actor, id: string) {
  await db.transaction(async (tx) => {
    const [gone] = await tx.delete(budgets).where(and(eq(budgets.id, id), eq(budgets.accountId, actor.accountId))).returning();
    if (!gone) throw new AppError("not_found", "No such budget.");
    await tx.update(accounts).set({ hasBudgets: sql`exists (select 1 from budgets where account_id = ${actor.accountId})` }).where(eq(accounts.id, actor.accountId));
    await recordAudit(tx, { accountId: actor.accountId, actorUserId: actor.id, actor: actor.email, action: "budget.delete", targetType: "budget", targetId: id, details: { accountId: actor.accountId, scope: gone.scope, period: gone.period, before: { limitMicroUsd: gone.limitMicroUsd, softLimitMicroUsd: gone.softLimitMicroUsd }, after: null } });
  });
  return { deleted: id };
}

/** What the target has spent in the current window, from the request log. */
async function spentSoFar(tx: DbOrTx, accountId: string, tz: string, period: BudgetPeriod, t: { userId: string | null; keyId: string | null }) {
  const r = (await tx.execute(sql`
    with w as (select ${windowStart(sql`${period}::text`, sql`${tz}::text`)} as start, ${windowName(sql`${period}::text`, sql`${tz}::text`)} as name)
    select w.name, coalesce((
      select sum(l.cost_micro_usd) from request_logs l
        ${t.userId ? sql`join api_keys k on k.id = l.key_id and k.created_by_user_id = ${t.userId}` : sql``}
       where l.account_id = ${accountId} and l.created_at >= w.start ${t.keyId ? sql`and l.key_id = ${t.keyId}` : sql``}), 0) as spent
      from w`)) as unknown as { rows: { name: string; spent: string | number }[] };
  return { window: r.rows[0]!.name, spent: Number(r.rows[0]!.spent) };
}

/** The members and keys a budget may cover (the form's choices). */
export async function budgetTargets(db: DbOrTx, accountId: string) {
  const members = await db.select({ id: users.id, email: users.email }).from(memberships).innerJoin(users, eq(users.id, memberships.userId)).where(eq(memberships.accountId, accountId)).orderBy(users.email);
  const keys = await db
    .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, last4: apiKeys.last4 })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), sql`${apiKeys.revokedAt} is null`, eq(apiKeys.playground, false)))
    .orderBy(apiKeys.name);
  return { members, keys };
}
