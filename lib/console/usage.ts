/**
 * The request log as the account sees it: filters (key, model, status, date range), totals,
 * daily spend by model and CSV. Dates are UTC days; `to` is inclusive.
 */
import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "../../db/client";
import { requestLogs } from "../../db/schema";
import { madeByMember } from "../keys/visibility";
import { toCsv, usdCell } from "./csv";
import { AppError } from "./errors";
import { parseInstant } from "./query";
import type { DailySpend, RequestView } from "../views";
import type { UsageTotalsView } from "../views";
export type { DailySpend, RequestView };

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Use YYYY-MM-DD.")
  .refine((s) => parseInstant(s) !== null, "Use a real date, YYYY-MM-DD.");

export const usageFilterSchema = z.object({
  keyId: z.string().max(100).optional(),
  /** One member's requests: the playground's under their session and their keys'. Forced to the caller for members. */
  memberId: z.string().max(100).optional(),
  requestId: z.string().max(100).optional(),
  /** API-key requests or the console's playground. */
  source: z.enum(["api", "playground"]).optional(),
  model: z.string().max(200).optional(),
  /** "ok" (2xx), "error" (≥ 400) or one exact status code. */
  status: z.union([z.enum(["ok", "error"]), z.string().regex(/^\d{3}$/)]).optional(),
  from: day.optional(),
  to: day.optional(),
  before: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export type UsageFilter = z.infer<typeof usageFilterSchema>;

export function parseUsageFilter(params: URLSearchParams): UsageFilter {
  const raw: Record<string, string> = {};
  for (const [k, v] of params) if (v !== "") raw[k] = v;
  const parsed = usageFilterSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", `${String(issue.path[0])}: ${issue.message}`, { field: String(issue.path[0]) });
  }
  return parsed.data;
}

function conditions(accountId: string, f: UsageFilter): SQL | undefined {
  const c: (SQL | undefined)[] = [eq(requestLogs.accountId, accountId)];
  if (f.keyId) c.push(eq(requestLogs.keyId, f.keyId));
  if (f.memberId) c.push(memberRequests(accountId, f.memberId));
  if (f.requestId) c.push(eq(requestLogs.requestId, f.requestId));
  if (f.source) c.push(eq(requestLogs.source, f.source));
  if (f.model) c.push(eq(requestLogs.model, f.model));
  if (f.status === "ok") c.push(and(gte(requestLogs.status, 200), lt(requestLogs.status, 300)));
  else if (f.status === "error") c.push(gte(requestLogs.status, 400));
  else if (f.status) c.push(eq(requestLogs.status, Number(f.status)));
  if (f.from) c.push(gte(requestLogs.createdAt, new Date(`${f.from}T00:00:00Z`)));
  if (f.to) c.push(lt(requestLogs.createdAt, new Date(new Date(`${f.to}T00:00:00Z`).getTime() + 86_400_000)));
  return and(...c);
}

/** Requests of one member of the organisation: made in their session, or with a key they created. */
export function memberRequests(accountId: string, userId: string): SQL {
  return madeByMember(accountId, userId, requestLogs.keyId, requestLogs.userId);
}

export async function listRequests(db: DbOrTx, accountId: string, f: UsageFilter) {
  const limit = f.limit ?? 50;
  const rows = await db
    .select()
    .from(requestLogs)
    .where(and(conditions(accountId, f), f.before ? lt(requestLogs.id, f.before) : undefined))
    .orderBy(desc(requestLogs.id))
    .limit(limit + 1);
  const items: RequestView[] = rows.slice(0, limit).map((r) => ({
    id: r.id,
    requestId: r.requestId,
    createdAt: r.createdAt.toISOString(),
    // The playground's own key (principal.ts) is nobody's to see: its rows show the source only.
    keyId: r.source === "playground" ? null : r.keyId,
    source: r.source,
    method: r.method,
    route: r.route,
    model: r.model,
    status: r.status,
    errorCode: r.errorCode,
    stream: r.stream,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    cacheWrite5mTokens: r.cacheWrite5mTokens,
    cacheWrite1hTokens: r.cacheWrite1hTokens,
    reasoningTokens: r.reasoningTokens,
    usageNote: r.usageNote,
    costMicroUsd: r.costMicroUsd,
    latencyMs: r.latencyMs,
    ttftMs: r.ttftMs,
    settlement: r.settlement,
  }));
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

export async function usageTotals(db: DbOrTx, accountId: string, f: UsageFilter): Promise<UsageTotalsView> {
  const [row] = await db
    .select({
      requests: sql<number>`count(*)::int`,
      errors: sql<number>`count(*) filter (where ${requestLogs.status} >= 400)::int`,
      inputTokens: sql<string>`coalesce(sum(${requestLogs.inputTokens}), 0)`,
      outputTokens: sql<string>`coalesce(sum(${requestLogs.outputTokens}), 0)`,
      cacheReadTokens: sql<string>`coalesce(sum(${requestLogs.cacheReadTokens}), 0)`,
      cacheWriteTokens: sql<string>`coalesce(sum(${requestLogs.cacheWrite5mTokens} + ${requestLogs.cacheWrite1hTokens}), 0)`,
      reasoningTokens: sql<string>`coalesce(sum(${requestLogs.reasoningTokens}), 0)`,
      saved: CACHE_SAVED,
      responseCacheSaved: sql<string>`coalesce(sum(${requestLogs.savedMicroUsd}), 0)`,
      cost: sql<string>`coalesce(sum(${requestLogs.costMicroUsd}), 0)`,
      batchCost: sql<string>`coalesce(sum(${requestLogs.costMicroUsd}) filter (where ${requestLogs.batchId} is not null), 0)`,
    })
    .from(requestLogs)
    .where(conditions(accountId, f));
  return {
    requests: row?.requests ?? 0,
    errors: row?.errors ?? 0,
    inputTokens: Number(row?.inputTokens ?? 0),
    outputTokens: Number(row?.outputTokens ?? 0),
    cacheReadTokens: Number(row?.cacheReadTokens ?? 0),
    cacheWriteTokens: Number(row?.cacheWriteTokens ?? 0),
    reasoningTokens: Number(row?.reasoningTokens ?? 0),
    cacheSavedMicroUsd: Number(row?.saved ?? 0),
    responseCacheSavedMicroUsd: Number(row?.responseCacheSaved ?? 0),
    costMicroUsd: Number(row?.cost ?? 0),
    batchCostMicroUsd: Number(row?.batchCost ?? 0),
  };
}

/**
 * What caching saved, in µUSD: cache reads × (input price − cache-read price), at the prices
 * each request was charged at (its price snapshot), rounded down per request.
 */
const CACHE_SAVED = sql<string>`coalesce(sum(floor(${requestLogs.cacheReadTokens} * greatest(0,
  coalesce((${requestLogs.priceSnapshot}->>'inputPerMTok')::numeric, 0)
  - coalesce((${requestLogs.priceSnapshot}->>'cacheReadPerMTok')::numeric, (${requestLogs.priceSnapshot}->>'inputPerMTok')::numeric, 0)) / 1000000)), 0)`;

/** Spend (and what caching saved) per UTC day and model over the filter (30 days back when no `from`). */
export async function dailySpendByModel(db: DbOrTx, accountId: string, f: UsageFilter, now = new Date()): Promise<DailySpend[]> {
  const from = f.from ?? new Date(now.getTime() - 29 * 86_400_000).toISOString().slice(0, 10);
  const dayExpr = sql<string>`to_char(${requestLogs.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .select({
      day: dayExpr,
      model: sql<string>`coalesce(${requestLogs.model}, '(none)')`,
      cost: sql<string>`coalesce(sum(${requestLogs.costMicroUsd}), 0)`,
      requests: sql<number>`count(*)::int`,
      saved: CACHE_SAVED,
    })
    .from(requestLogs)
    .where(conditions(accountId, { ...f, from }))
    .groupBy(dayExpr, requestLogs.model)
    .orderBy(dayExpr);
  return rows.map((r) => ({ day: r.day, model: r.model, costMicroUsd: Number(r.cost), requests: r.requests, savedMicroUsd: Number(r.saved) }));
}

export async function requestsCsv(db: DbOrTx, accountId: string, f: UsageFilter): Promise<string> {
  const rows: (string | number | boolean | null)[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await listRequests(db, accountId, { ...f, before, limit: 200 });
    for (const r of page.items) {
      rows.push([r.createdAt, r.requestId, r.keyId, r.source, r.method, r.route, r.model, r.status, r.errorCode, r.stream, r.inputTokens, r.outputTokens, usdCell(r.costMicroUsd), r.latencyMs, r.ttftMs, r.settlement,
        r.cacheReadTokens, r.cacheWrite5mTokens, r.cacheWrite1hTokens, r.reasoningTokens, r.usageNote]);
    }
    if (!page.nextCursor || rows.length >= 100_000) break;
    before = page.nextCursor;
  }
  return toCsv(
    ["created_at", "request_id", "key_id", "source", "method", "route", "model", "status", "error_code", "stream", "input_tokens", "output_tokens", "cost_usd", "latency_ms", "ttft_ms", "settlement",
     "cache_read_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens", "reasoning_tokens", "usage_note"],
    rows,
  );
}
