/**
 * One request as the request inspector shows it: the log row (upstream, protocols, stream,
 * TTFT, latency, every token class, the price snapshot), the key, the ledger rows it moved,
 * and for a video the task and its webhook deliveries. Scoped to the account: another
 * account's request id is a 404, the same answer as an unknown id.
 */
import { and, eq, or } from "drizzle-orm";
import type { DB } from "../../db/client";
import { apiKeys, ledgerEntries, requestLogs, tasks, upstreams } from "../../db/schema";
import { textClassPrices } from "../billing/text-cost";
import { usageClasses } from "../gateway/usage";
import { listWebhookDeliveries } from "../tasks/webhook-console";
import { AppError } from "./errors";
import type { LedgerView } from "./ledger";
import { memberRequests } from "./usage";
import type { CostLine, RequestDetail } from "../views";
export type { CostLine, RequestDetail };

const CLASS_LABELS = [
  ["input", "uncached input", "inputPerMTok"],
  ["cacheRead", "cache read", "cacheReadPerMTok"],
  ["cacheWrite5m", "cache write (5 min)", "cacheWrite5mPerMTok"],
  ["cacheWrite1h", "cache write (1 h)", "cacheWrite1hPerMTok"],
  ["output", "output", "outputPerMTok"],
  ["reasoning", "reasoning", "reasoningPerMTok"],
  ["imageOutput", "image output", "imageOutputPerMTok"],
] as const;

/**
 * A text request's charge as billing computed it (lib/billing/text-cost.ts): the disjoint token
 * classes × the snapshot's class prices, summed, rounded up once. Null for non-token prices.
 */
function textCostLines(r: typeof requestLogs.$inferSelect): { lines: CostLine[]; sumMicroUsd: number; roundedMicroUsd: number } | null {
  const price = r.priceSnapshot;
  if (!price || (price.inputPerMTok === undefined && price.outputPerMTok === undefined)) return null;
  const classes = usageClasses(r);
  const prices = textClassPrices(price);
  const lines = CLASS_LABELS.filter(([k]) => classes[k] > 0).map(([k, label, pk]) => ({
    label,
    tokens: classes[k],
    perMTokMicroUsd: prices[pk],
    microUsd: (classes[k] * prices[pk]) / 1_000_000,
  }));
  const exact = lines.reduce((n, l) => n + BigInt(l.tokens) * BigInt(l.perMTokMicroUsd), 0n);
  const rounded = Number(exact / 1_000_000n + (exact % 1_000_000n === 0n ? 0n : 1n));
  return { lines, sumMicroUsd: Number(exact) / 1_000_000, roundedMicroUsd: rounded };
}

/**
 * `see`: what the caller's role shows — `memberId` limits it to that member's requests (anyone
 * else's is a 404), and the ledger rows (balances) and webhook deliveries are left out without
 * the role's "ledger" and "webhooks".
 */
export async function requestDetail(db: DB, accountId: string, requestId: string, see: { memberId?: string; ledger?: boolean; webhooks?: boolean } = { ledger: true, webhooks: true }): Promise<RequestDetail> {
  const [r] = await db
    .select()
    .from(requestLogs)
    .where(and(eq(requestLogs.requestId, requestId), eq(requestLogs.accountId, accountId), see.memberId ? memberRequests(accountId, see.memberId) : undefined));
  if (!r) throw new AppError("not_found", "No such request.");
  const { accountId: _a, userId: _u, createdAt, ...fields } = r;

  const [key] = r.keyId
    ? await db.select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, last4: apiKeys.last4 }).from(apiKeys).where(and(eq(apiKeys.id, r.keyId), eq(apiKeys.accountId, accountId)))
    : [];
  const [upstream] = r.upstreamId ? await db.select({ id: upstreams.id, protocol: upstreams.protocol }).from(upstreams).where(eq(upstreams.id, r.upstreamId)) : [];

  // A video's charge names the task; its refund or release rows carry only the task id.
  const direct = await db.select().from(ledgerEntries).where(and(eq(ledgerEntries.accountId, accountId), eq(ledgerEntries.requestId, requestId)));
  const taskId = direct.find((l) => l.taskId)?.taskId ?? null;
  const rows = taskId
    ? await db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.accountId, accountId), or(eq(ledgerEntries.requestId, requestId), eq(ledgerEntries.taskId, taskId))))
    : direct;
  const ledger: LedgerView[] = (see.ledger ? rows : [])
    .sort((a, b) => a.id - b.id)
    .map((l) => ({
      id: l.id,
      createdAt: l.createdAt.toISOString(),
      kind: l.kind,
      deltaMicroUsd: l.deltaMicroUsd,
      balanceAfterMicroUsd: l.balanceAfterMicroUsd,
      requestId: l.requestId,
      taskId: l.taskId,
      keyId: l.keyId,
      note: l.note,
    }));

  let task = null;
  let deliveries: Awaited<ReturnType<typeof listWebhookDeliveries>> = [];
  if (taskId) {
    const [t] = await db.select().from(tasks).where(and(eq(tasks.id, taskId), eq(tasks.accountId, accountId)));
    if (t) {
      task = {
        id: t.id,
        status: t.status,
        progress: t.progress,
        seconds: t.seconds,
        size: t.size,
        holdMicroUsd: t.holdMicroUsd,
        costMicroUsd: t.costMicroUsd,
        errorMessage: t.errorMessage,
        createdAt: t.createdAt.toISOString(),
        completedAt: t.completedAt?.toISOString() ?? null,
      };
      if (see.webhooks) deliveries = await listWebhookDeliveries(db, accountId, { taskId, limit: 20 });
    }
  }
  return {
    request: { ...fields, createdAt: createdAt.toISOString() },
    textCost: textCostLines(r),
    key: key ?? null,
    upstream: upstream ?? null,
    ledger,
    task,
    deliveries,
  };
}

