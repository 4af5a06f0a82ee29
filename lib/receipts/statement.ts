/**
 * A monthly statement (UTC calendar month): the balance's movement from the ledger (opening,
 * credits, usage net of refunds, adjustments, closing — exact, the ledger is never pruned) and
 * spend by model from the request log (as the Usage page counts it; a month older than
 * REQUEST_LOG_RETENTION_DAYS has no breakdown any more and the statement says so).
 *
 * By member: an organisation with more than one membership also gets spend per member — the
 * request's user (playground), else the user who created the key; a personal organisation with
 * one member leaves the section out.
 */
import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ledgerEntries, memberships, requestLogs } from "../../db/schema";
import { toCsv, usdCell } from "../console/csv";

export interface StatementPeriod {
  month: string;
  start: Date;
  end: Date;
}

/** "2026-11" → the UTC month; null when malformed or in the future. */
export function parseMonth(month: string, now = new Date()): StatementPeriod | null {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!m) return null;
  const start = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  const end = new Date(Date.UTC(Number(m[1]), Number(m[2]), 1));
  if (start > now || start.getUTCFullYear() < 2000) return null;
  return { month, start, end };
}

export interface ModelLine {
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
}

export interface MemberLine {
  member: string;
  requests: number;
  costMicroUsd: number;
}

export interface Statement {
  period: StatementPeriod;
  openingMicroUsd: number;
  topupsMicroUsd: number;
  otherCreditsMicroUsd: number;
  usageMicroUsd: number;
  adjustmentsMicroUsd: number;
  closingMicroUsd: number;
  byModel: ModelLine[];
  /** null for an organisation with one member. */
  byMember: MemberLine[] | null;
}

async function balanceBefore(db: DbOrTx, accountId: string, at: Date): Promise<number> {
  const [row] = await db
    .select({ b: ledgerEntries.balanceAfterMicroUsd })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.accountId, accountId), lt(ledgerEntries.createdAt, at)))
    .orderBy(desc(ledgerEntries.id))
    .limit(1);
  return row?.b ?? 0;
}

export async function spendByModel(db: DbOrTx, accountId: string, p: StatementPeriod): Promise<ModelLine[]> {
  const rows = await db
    .select({
      model: sql<string>`coalesce(${requestLogs.model}, '(none)')`,
      requests: sql<number>`count(*)::int`,
      input: sql<string>`coalesce(sum(${requestLogs.inputTokens}), 0)`,
      output: sql<string>`coalesce(sum(${requestLogs.outputTokens}), 0)`,
      cost: sql<string>`coalesce(sum(${requestLogs.costMicroUsd}), 0)`,
    })
    .from(requestLogs)
    .where(and(eq(requestLogs.accountId, accountId), gte(requestLogs.createdAt, p.start), lt(requestLogs.createdAt, p.end)))
    .groupBy(requestLogs.model)
    .orderBy(sql`sum(${requestLogs.costMicroUsd}) desc`);
  return rows.map((r) => ({ model: r.model, requests: r.requests, inputTokens: Number(r.input), outputTokens: Number(r.output), costMicroUsd: Number(r.cost) }));
}

/** Spend per member of an organisation with several members; null for a one-member organisation. */
export async function spendByMember(db: DbOrTx, accountId: string, p: StatementPeriod): Promise<MemberLine[] | null> {
  const [m] = await db.select({ n: sql<number>`count(*)::int` }).from(memberships).where(eq(memberships.accountId, accountId));
  if (!m || m.n < 2) return null;
  const res = await db.execute(sql`
    select coalesce(u.email, '(key without a recorded creator)') as member, count(*)::int as requests, coalesce(sum(rl.cost_micro_usd), 0) as cost
    from request_logs rl
    left join api_keys k on k.id = rl.key_id
    left join users u on u.id = coalesce(rl.user_id, k.created_by_user_id)
    where rl.account_id = ${accountId} and rl.created_at >= ${p.start} and rl.created_at < ${p.end}
    group by 1 order by sum(rl.cost_micro_usd) desc`);
  const rows = (res as unknown as { rows: { member: string; requests: number; cost: string | number }[] }).rows;
  return rows.map((r) => ({ member: r.member, requests: Number(r.requests), costMicroUsd: Number(r.cost) }));
}

export async function buildStatement(db: DbOrTx, accountId: string, p: StatementPeriod): Promise<Statement> {
  const [sums] = await db
    .select({
      topups: sql<string>`coalesce(sum(${ledgerEntries.deltaMicroUsd}) filter (where ${ledgerEntries.kind} = 'topup'), 0)`,
      credits: sql<string>`coalesce(sum(${ledgerEntries.deltaMicroUsd}) filter (where ${ledgerEntries.kind} in ('redeem', 'admin_credit')), 0)`,
      usage: sql<string>`coalesce(sum(${ledgerEntries.deltaMicroUsd}) filter (where ${ledgerEntries.kind} in ('charge', 'refund', 'hold', 'release')), 0)`,
      adjustments: sql<string>`coalesce(sum(${ledgerEntries.deltaMicroUsd}) filter (where ${ledgerEntries.kind} in ('admin_debit', 'stripe_refund', 'stripe_dispute')), 0)`,
    })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.accountId, accountId), gte(ledgerEntries.createdAt, p.start), lt(ledgerEntries.createdAt, p.end)));
  const opening = await balanceBefore(db, accountId, p.start);
  const closing = await balanceBefore(db, accountId, p.end);
  return {
    period: p,
    openingMicroUsd: opening,
    topupsMicroUsd: Number(sums?.topups ?? 0),
    otherCreditsMicroUsd: Number(sums?.credits ?? 0),
    usageMicroUsd: -Number(sums?.usage ?? 0),
    adjustmentsMicroUsd: Number(sums?.adjustments ?? 0),
    closingMicroUsd: closing,
    byModel: await spendByModel(db, accountId, p),
    byMember: await spendByMember(db, accountId, p),
  };
}

export function statementCsv(s: Statement): string {
  const rows: (string | number)[][] = [
    ["summary", "opening_balance", "", "", "", usdCell(s.openingMicroUsd)],
    ["summary", "card_top_ups", "", "", "", usdCell(s.topupsMicroUsd)],
    ["summary", "other_credits", "", "", "", usdCell(s.otherCreditsMicroUsd)],
    ["summary", "usage", "", "", "", usdCell(s.usageMicroUsd)],
    ["summary", "adjustments", "", "", "", usdCell(s.adjustmentsMicroUsd)],
    ["summary", "closing_balance", "", "", "", usdCell(s.closingMicroUsd)],
    ...s.byModel.map((m) => ["model", m.model, m.requests, m.inputTokens, m.outputTokens, usdCell(m.costMicroUsd)]),
    ...(s.byMember ?? []).map((m) => ["member", m.member, m.requests, "", "", usdCell(m.costMicroUsd)]),
  ];
  return toCsv(["section", "item", "requests", "input_tokens", "output_tokens", "amount_usd"], rows);
}
