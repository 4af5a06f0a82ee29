/** Admin: users and their balances. Every change is audited; disabling and demotion bump the
 * user's sessionVersion so their open sessions end on the next request. */
import { randomUUID } from "node:crypto";
import { and, asc, eq, ilike, sql } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { accounts, apiKeys, memberships, users } from "../../db/schema";
import { adminDebit, waitForSpendable } from "../billing/admin-debit";
import { applyLedgerChange } from "../billing/ledger";
import { parseUsd } from "../billing/money";
import { notifyInvalidation } from "../invalidation";
import { auditDiff, recordAudit } from "./audit";
import { AppError } from "./errors";
import type { AdminUserView } from "../views";

export interface Actor {
  id: string;
  email: string;
}

export async function listUsers(db: DB, opts: { q?: string; offset?: number; limit?: number } = {}): Promise<{ items: AdminUserView[]; nextOffset: number | null }> {
  const limit = Math.min(opts.limit ?? 50, 200);
  const offset = Math.max(opts.offset ?? 0, 0);
  const where = opts.q ? ilike(users.email, `%${opts.q.replace(/[%_\\]/g, (c) => `\\${c}`)}%`) : undefined;
  const rows = await db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
      disabled: users.disabled,
      createdAt: users.createdAt,
      accountId: users.accountId,
      balanceMicroUsd: accounts.balanceMicroUsd,
      heldMicroUsd: accounts.heldMicroUsd,
      rpm: accounts.rpm,
      tpm: accounts.tpm,
      maxConcurrent: accounts.maxConcurrent,
      keys: sql<number>`(select count(*)::int from ${apiKeys} where ${apiKeys.accountId} = ${users.accountId} and ${apiKeys.revokedAt} is null and not ${apiKeys.playground})`,
      /** Every organisation the user belongs to (a credit may go to a team's). */
      orgs: sql<{ id: string; name: string; personal: boolean; balanceMicroUsd: number }[]>`(select coalesce(json_agg(json_build_object('id', a.id, 'name', a.name, 'personal', a.personal, 'balanceMicroUsd', a.balance_micro_usd) order by a.personal desc, a.name), '[]'::json) from memberships m join accounts a on a.id = m.account_id where m.user_id = ${users.id})`,
    })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(where)
    .orderBy(asc(users.createdAt))
    .limit(limit + 1)
    .offset(offset);
  return {
    items: rows.slice(0, limit).map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
    nextOffset: rows.length > limit ? offset + limit : null,
  };
}

export const updateUserSchema = z
  .object({ role: z.enum(["user", "admin"]).optional(), disabled: z.boolean().optional() })
  .refine((v) => v.role !== undefined || v.disabled !== undefined, "Nothing to change.");

export async function updateUser(db: DB, actor: Actor, userId: string, body: z.infer<typeof updateUserSchema>) {
  if (userId === actor.id) throw new AppError("invalid_request", "You cannot change your own role or disable yourself.");
  const [target] = await db.select().from(users).where(eq(users.id, userId));
  if (!target) throw new AppError("not_found", "No such user.");
  const demoted = body.role === "user" && target.role === "admin";
  const disabling = body.disabled === true && !target.disabled;
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({
        ...(body.role ? { role: body.role } : {}),
        ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
        ...(demoted || disabling ? { sessionVersion: sql`${users.sessionVersion} + 1` } : {}),
      })
      .where(eq(users.id, userId));
    // One account per user: a disabled user's keys stop working too.
    if (body.disabled !== undefined) await tx.update(accounts).set({ disabled: body.disabled }).where(eq(accounts.id, target.accountId));
    await recordAudit(tx, {
      actorUserId: actor.id,
      actor: actor.email,
      action: "user.update",
      accountId: target.accountId,
      targetType: "user",
      targetId: userId,
      // before/after of what changed, for the audit log's diff.
      details: {
        email: target.email,
        ...body,
        before: { ...(body.role ? { role: target.role } : {}), ...(body.disabled !== undefined ? { disabled: target.disabled } : {}) },
        after: { ...(body.role ? { role: body.role } : {}), ...(body.disabled !== undefined ? { disabled: body.disabled } : {}) },
      },
    });
  });
  if (body.disabled !== undefined) await notifyInvalidation({ kind: "accounts", ids: [target.accountId] });
  return { id: userId };
}

const limit = z.union([z.null(), z.coerce.number().int("A whole number.").min(1, "At least 1.").max(1_000_000_000)]);
export const accountLimitsSchema = z.object({ rpm: limit.optional(), tpm: limit.optional(), maxConcurrent: limit.optional() });

/** The user's organisation's limits across all its keys (null = none). */
export async function setAccountLimits(db: DB, actor: Actor, userId: string, body: z.infer<typeof accountLimitsSchema>) {
  const [target] = await db.select({ accountId: users.accountId, email: users.email }).from(users).where(eq(users.id, userId));
  if (!target) throw new AppError("not_found", "No such user.");
  const set = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  if (!Object.keys(set).length) throw new AppError("invalid_request", "Nothing to change.");
  const [before] = await db.select({ rpm: accounts.rpm, tpm: accounts.tpm, maxConcurrent: accounts.maxConcurrent }).from(accounts).where(eq(accounts.id, target.accountId));
  await db.update(accounts).set(set).where(eq(accounts.id, target.accountId));
  await recordAudit(db, { accountId: target.accountId, actorUserId: actor.id, actor: actor.email, action: "account.limits", targetType: "account", targetId: target.accountId, details: { email: target.email, ...set, ...auditDiff(before ?? {}, set) } });
  await notifyInvalidation({ kind: "accounts", ids: [target.accountId] });
  return { id: userId };
}

export const adjustBalanceSchema = z
  .object({
    direction: z.enum(["credit", "debit"]),
    usd: z.string().trim().refine((s) => (parseUsd(s) ?? 0) > 0, "Enter a positive dollar amount such as 25 or 0.50."),
    note: z.string().trim().max(500, "Use at most 500 characters.").default(""),
    /** From the form, so a double submit credits once. */
    idempotencyKey: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/).optional(),
    /** One of the user's organisations (a team's); default the user's own. */
    accountId: z.string().trim().min(1).max(100).optional(),
  })
  .refine((v) => v.direction === "credit" || v.note.length > 0, { message: "Say why (the note is required for a debit).", path: ["note"] });

export async function adjustBalance(db: DB, actor: Actor, userId: string, body: z.infer<typeof adjustBalanceSchema>) {
  const [user] = await db.select({ accountId: users.accountId, email: users.email }).from(users).where(eq(users.id, userId));
  if (!user) throw new AppError("not_found", "No such user.");
  const target = { ...user, accountId: body.accountId ?? user.accountId };
  if (body.accountId && body.accountId !== user.accountId) {
    const [m] = await db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.accountId, body.accountId), eq(memberships.userId, userId)));
    if (!m) throw new AppError("not_found", "This user is not a member of that organisation.", { field: "accountId" });
  }
  const micro = parseUsd(body.usd)!;
  const delta = body.direction === "credit" ? micro : -micro;
  if (body.direction === "debit") await waitForSpendable(db, target.accountId, micro);
  return db.transaction(async (tx) => {
    const change = {
      accountId: target.accountId,
      idempotencyKey: `admin:${target.accountId}:${body.idempotencyKey ?? randomUUID()}`,
      actorUserId: actor.id,
      note: body.note || undefined,
    };
    // A debit takes only money no request is using (admin-debit.ts); a credit is never refused.
    const r =
      body.direction === "credit"
        ? await applyLedgerChange(tx, { ...change, deltaMicroUsd: delta, kind: "admin_credit" })
        : await adminDebit(tx, { ...change, deltaMicroUsd: delta });
    if (!r.ok) {
      if (r.reason === "held") throw new AppError("invalid_request", `Cannot debit that much now: ${r.message}.`, { field: "usd" });
      if (r.reason === "insufficient_balance") throw new AppError("invalid_request", "A debit cannot take the balance below zero.", { field: "usd" });
      throw new AppError("not_found", "No such account.");
    }
    if (r.applied) {
      await recordAudit(tx, {
        actorUserId: actor.id,
        actor: actor.email,
        action: `balance.${body.direction}`,
        accountId: target.accountId,
        targetType: "user",
        targetId: userId,
        details: {
          email: target.email,
          accountId: target.accountId,
          deltaMicroUsd: delta,
          note: body.note,
          before: { balanceMicroUsd: r.balanceAfterMicroUsd - delta },
          after: { balanceMicroUsd: r.balanceAfterMicroUsd },
        },
      });
    }
    return { applied: r.applied, balanceAfterMicroUsd: r.applied ? r.balanceAfterMicroUsd : null };
  });
}
