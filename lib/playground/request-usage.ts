/**
 * What one playground request was billed, from its request-log row: the browser asks after a
 * Stop, when the stream ended before the protocol's usage event could arrive.
 */
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { memberRequests } from "../console/usage";
import { requestLogs } from "../../db/schema";
import type { RequestUsage } from "../views";
export type { RequestUsage };

/** `memberId`: only that member's request (lib/console/scope.ts). */
export async function requestUsage(db: DbOrTx, accountId: string, requestId: string, memberId?: string): Promise<RequestUsage | null> {
  const [row] = await db
    .select({
      requestId: requestLogs.requestId,
      model: requestLogs.model,
      status: requestLogs.status,
      inputTokens: requestLogs.inputTokens,
      outputTokens: requestLogs.outputTokens,
      costMicroUsd: requestLogs.costMicroUsd,
      settlement: requestLogs.settlement,
      ttftMs: requestLogs.ttftMs,
      latencyMs: requestLogs.latencyMs,
      source: requestLogs.source,
    })
    .from(requestLogs)
    .where(and(eq(requestLogs.requestId, requestId), eq(requestLogs.accountId, accountId), memberId ? memberRequests(accountId, memberId) : undefined));
  return row ?? null;
}
