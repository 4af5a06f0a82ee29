/**
 * One batch line's run and end, shared by the gateway runner (runner.ts) and the vendors' batch
 * APIs (native.ts): the line through the route's own path with a billing drawn on the batch's
 * hold (or the answer a vendor batch gave, decoded the same way), then its end with its money in
 * one compare-and-set per batch (decision 0053).
 */
import { performance } from "node:perf_hooks";
import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { batchLines, type BatchLineStatus, type ModelPrice } from "../../../db/schema";
import { lineCharge, settleBatchLines, type LineCharge } from "../../billing/batch-money";
import type { BillingPort, RequestLogFields } from "../../billing/port";
import { requestLogRow } from "../../billing/request-log";
import { batchTextPrice, textCostMicro } from "../../billing/text-cost";
import { logger } from "../../logger";
import { metrics } from "../../metrics";
import { openaiEmbeddings, serveEmbeddings } from "../embeddings/handle-embeddings";
import { errorResponse, type ApiError } from "../errors";
import type { GatewayResponse } from "../http";
import { textCall, type TextCallInput } from "../routes/text-call";
import type { Principal, RouteContext } from "../types";
import { EMBEDDINGS, lineProtocol, runnableBody, sealJson, unsealJson } from "./lines";

/** A claimed line with what running it needs from its batch. */
export interface Claimed {
  batchId: string;
  idx: number;
  customId: string;
  url: string;
  body: Record<string, unknown>;
  bodyBytes: number;
  share: number;
  requestId: string;
  claim: string;
  accountId: string;
  keyId: string | null;
  holdId: string;
  principal: Principal;
}

/** How long a line refused for the key's rate or token limit waits before it is tried again. */
const LIMITED_RETRY_MS = 5_000;

/** A line row joined with its batch's account, key, hold and principal (`claim`: who holds it). */
export function claimedOf(r: Record<string, unknown>, claim: string): Claimed {
  return {
    batchId: String(r.batch_id),
    idx: Number(r.idx),
    customId: String(r.custom_id),
    url: String(r.url),
    body: unsealJson<Record<string, unknown>>(String(r.body)),
    bodyBytes: Number(r.body_bytes),
    share: Number(r.share_micro_usd),
    requestId: String(r.request_id),
    claim,
    accountId: String(r.account_id),
    keyId: (r.key_id as string | null) ?? null,
    holdId: String(r.hold_id),
    principal: r.principal as unknown as Principal,
  };
}

async function bodyText(res: GatewayResponse): Promise<string> {
  const b = res.body;
  if (b === null) return "";
  if (typeof b === "string") return b;
  if (b instanceof Uint8Array) return Buffer.from(b).toString("utf8");
  let out = "";
  for await (const c of b) out += typeof c === "string" ? c : Buffer.from(c).toString("utf8");
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A line that has run: its answer, its log fields and its cost at the batch price (null: it never reached the money). */
export interface Ran {
  line: Claimed;
  status: number;
  body: unknown;
  log: RequestLogFields | null;
  costMicroUsd: number;
  startedAt: number;
}

/** The cost at the batch price of what the handler charged at the model's own (0 stays 0). */
function batchCost(costMicroUsd: number, tokens: { inputTokens: number; outputTokens: number }, price: ModelPrice | null | undefined): number {
  if (!Number.isFinite(costMicroUsd)) return Infinity;
  if (costMicroUsd <= 0 || !price) return 0;
  return textCostMicro(tokens, batchTextPrice(price));
}

/**
 * Runs one claimed line through the route's own path (the text call, or the embeddings pipeline)
 * with a billing that draws on the batch's hold: `reserve` grants the line's share, `settle`
 * only records what it would charge; endLines charges it.
 */
export async function callLine(db: DB, line: Claimed, answered?: TextCallInput["answered"]): Promise<Ran> {
  const startedAt = performance.now();
  const out: Ran = { line, status: 500, body: null, log: null, costMicroUsd: 0, startedAt };
  if (line.share <= 0) {
    // Priced at 0 when the batch was created (its body or model was not valid then): never run for free.
    return { ...out, status: 400, body: { error: { message: "This line could not be priced when the batch was created: its body or its model is not valid.", type: "invalid_request_error", code: "invalid_request" } } };
  }
  const ac = new AbortController();
  const ctx = {
    req: { method: "POST", url: new URL(`http://gateway${line.url}`), headers: {}, body: null, signal: ac.signal },
    requestId: line.requestId,
    startedAt,
    params: {},
    principal: line.principal,
    observe: {},
    settleAfterReply: false,
    readJson: async () => ({ ok: true, value: runnableBody(line.url, line.body) }),
    error: (e: ApiError) => errorResponse(e, "openai"),
  } as unknown as RouteContext;
  const hold = { kind: "row" as const, holdId: line.holdId, amountMicroUsd: line.share };
  try {
    let res: GatewayResponse;
    if (line.url === EMBEDDINGS) {
      const port: BillingPort = {
        reserve: async () => ({ ok: true, hold }),
        async settle(_h, s) {
          const price = s.log.priceSnapshot ?? null;
          out.costMicroUsd = batchCost(s.costMicroUsd, { inputTokens: s.log.inputTokens ?? 0, outputTokens: 0 }, price);
          out.log = { ...s.log, priceSnapshot: price ? batchTextPrice(price) : null };
          return { chargedMicroUsd: lineCharge(line.share, out.costMicroUsd), balanceAfterMicroUsd: null };
        },
      };
      res = await serveEmbeddings(ctx, openaiEmbeddings, port);
    } else {
      const billing: BillingPort = {
        reserve: async () => ({ ok: true, hold }),
        async settle(_h, s) {
          const l = s.log;
          const price = l.priceSnapshot ?? null;
          const tokens = { inputTokens: l.inputTokens ?? 0, outputTokens: l.outputTokens ?? 0, cacheReadTokens: l.cacheReadTokens, cacheWrite5mTokens: l.cacheWrite5mTokens, cacheWrite1hTokens: l.cacheWrite1hTokens, reasoningTokens: l.reasoningTokens };
          out.costMicroUsd = batchCost(s.costMicroUsd, tokens, price);
          out.log = { ...l, priceSnapshot: price ? batchTextPrice(price) : null };
          return { chargedMicroUsd: lineCharge(line.share, out.costMicroUsd), balanceAfterMicroUsd: null };
        },
      };
      const lp = lineProtocol(line.url)!;
      res = await textCall(ctx, db, line.url, { protocol: lp.protocol, parseOpts: lp.parseOpts, body: runnableBody(line.url, line.body), bodyBytes: line.bodyBytes, signal: ac.signal, wrapBilling: () => billing, answered });
    }
    return { ...out, status: res.status, body: parseJson(await bodyText(res)) };
  } catch (err) {
    logger().error({ err, batchId: line.batchId, line: line.idx }, "batch line failed");
    return { ...out, status: 500, log: null, body: { error: { message: "The gateway failed to run this line.", type: "server_error" } } };
  }
}

/**
 * Ends lines that have run, one transaction per batch: a compare-and-set on each line's claim
 * (a line another runner took after our lease ended is not ours to end), then the money of the
 * lines it ended (settleBatchLines). A line the key's own rate or token limit refused (429)
 * waits its turn instead of failing.
 */
export async function endLines(db: DB, ran: Ran[]): Promise<number> {
  const limited = ran.filter((r) => r.status === 429);
  for (const r of limited) {
    await db
      .update(batchLines)
      .set({ status: "pending", claim: null, dueAt: new Date(Date.now() + LIMITED_RETRY_MS) })
      .where(and(eq(batchLines.batchId, r.line.batchId), eq(batchLines.idx, r.line.idx), eq(batchLines.claim, r.line.claim)));
  }
  const byBatch = new Map<string, Ran[]>();
  for (const r of ran) if (r.status !== 429) byBatch.set(r.line.batchId, [...(byBatch.get(r.line.batchId) ?? []), r]);
  let ended = 0;
  for (const [batchId, group] of byBatch) {
    const first = group[0]!.line;
    const rows = group.map((r) => {
      const ok = r.status >= 200 && r.status < 300;
      const cost = ok && r.log ? lineCharge(r.line.share, r.costMicroUsd) : 0;
      return { r, status: (ok ? "succeeded" : "failed") as BatchLineStatus, cost };
    });
    const charged = await db.transaction(async (tx) => {
      // Relaxed commit (as a hold's, decision 0005): lines' ends lost to a database crash lose
      // their charges AND their states together, so the lines run again and are charged once.
      await tx.execute(sql`select set_config('synchronous_commit', 'off', true)`);
      const values = sql.join(
        rows.map((x) => sql`(${x.r.line.idx}::int, ${x.r.line.claim}::text, ${x.status}::text, ${sealJson({ status_code: x.r.status, body: x.r.body })}::text, ${x.cost}::bigint)`),
        sql`, `,
      );
      const mine = (await tx.execute(sql`
        update batch_lines l set status = v.status, claim = null, ended_at = now(), result = v.result, cost_micro_usd = v.cost
          from (values ${values}) as v(idx, claim, status, result, cost)
         where l.batch_id = ${batchId} and l.idx = v.idx and l.claim = v.claim and l.status = 'running'
        returning l.idx`)) as unknown as { rows: { idx: number }[] };
      const won = new Set(mine.rows.map((x) => Number(x.idx)));
      const lines: LineCharge[] = rows
        .filter((x) => won.has(x.r.line.idx))
        .map((x) => {
          const { line } = x.r;
          const req = { requestId: line.requestId, accountId: line.accountId, keyId: line.keyId, userId: line.principal.userId, source: line.principal.source, method: "POST", route: line.url, startedAt: x.r.startedAt, settleAfterReply: false };
          const fields: RequestLogFields = x.r.log ?? { model: String(line.body.model ?? "").slice(0, 200), status: x.r.status, settlement: "invalid", errorCode: x.r.status === 400 ? "invalid_request" : "server_error" };
          return { shareMicroUsd: line.share, costMicroUsd: x.cost, idempotencyKey: `batch:${batchId}:${line.idx}:charge`, note: `batch ${batchId} line ${line.idx}`, log: { ...requestLogRow(req, fields), batchId } };
        });
      await settleBatchLines(tx, { accountId: first.accountId, keyId: first.keyId, holdId: first.holdId }, lines);
      return lines.reduce((a, l) => a + l.costMicroUsd, 0);
    });
    if (charged > 0) metrics().spend.inc({ model: String(first.body.model ?? "") }, charged);
    ended += group.length;
  }
  return ended;
}
