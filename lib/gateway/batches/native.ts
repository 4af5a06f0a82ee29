/**
 * Batch lines served by a vendor's own batch API (decision 0070), driven by the runner's pass
 * (jobs.ts, the cron pass): nothing long-lived, every step a database state.
 *
 * - Submit: the pending lines of one (batch, catalog entry) group are taken in one statement
 *   (`running`, held by a new `vendor_batches` row), each converted as a single request would be
 *   (routes/text-batch.ts), and sent as ONE vendor batch (upstreams/batch-apis.ts). The vendor's
 *   id is kept with the row and never leaves the gateway.
 * - Poll: a submitted row is taken with a lease (`due_at`), asked for its state every
 *   BATCH_VENDOR_POLL_S; once ended, its results are read and each line ends through the
 *   runner's own money path (`endLines`: the compare-and-set on the line's claim, one charge at
 *   the batch price from the vendor's usage, its log row), so a line is charged once however
 *   often it is polled, by however many instances.
 * - A vendor batch that cannot be submitted, fails as a whole, or whose submitter died before
 *   its id was kept, gives its lines back to the gateway runner.
 * - A cancelled gateway batch cancels its vendor batches; what the vendor did not run comes
 *   back with the hold when the batch ends.
 */
import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { batches, vendorBatches } from "../../../db/schema";
import { env } from "../../env";
import { randomBase62 } from "../../ids";
import { logger } from "../../logger";
import { getCatalog, type ModelRoute } from "../catalog";
import { vendorBatchBody } from "../routes/text-batch";
import { BATCH_APIS, type BatchApi, type VendorLine, type VendorResult } from "../upstreams/batch-apis";
import { lineProtocol, runnableBody } from "./lines";
import { callLine, claimedOf, endLines, type Claimed, type Ran } from "./run-line";

/**
 * How long a submitter or a poller holds its vendor batch before another instance may take it
 * (the runner's own lease, BATCH_LINE_LEASE_S): a submitter that outlives it has its lines given
 * back; a poller that outlives it races the next one, and the lines' compare-and-set decides.
 */
const leaseMs = () => env().BATCH_LINE_LEASE_S * 1000;
/** A vendor line's own due date: past the batch's window by this much, finalizeBatch closes it anyway. */
const VENDOR_GRACE = "2 hours";
/** How long a vendor batch whose submitter died is looked for at a vendor that does not answer the search. */
const FIND_FOR_MS = 10 * 60_000;
/** Lines ended per transaction. */
const END_CHUNK = 100;

const customIdOf = (idx: number) => `line-${idx}`;

/** One pass: due groups submitted, due vendor batches polled (cancelled, ended), until `until`. */
export async function runNativePass(db: DB, opts: { until: number; pollMs?: number }): Promise<{ submitted: number; polled: number; ended: number }> {
  let submitted = 0;
  let polled = 0;
  let ended = 0;
  while (Date.now() < opts.until && (await submitOne(db))) submitted++;
  const pollMs = opts.pollMs ?? env().BATCH_VENDOR_POLL_S * 1000;
  while (Date.now() < opts.until) {
    const r = await pollOne(db, pollMs);
    if (r === null) break;
    polled++;
    if (r) ended++;
  }
  return { submitted, polled, ended };
}

/** The catalog entry by its row id (the vendor batch's lines were bound to it), or null when it is gone. */
async function routeOf(rowId: string): Promise<ModelRoute | null> {
  for (const list of (await getCatalog()).routes.values()) for (const r of list) if (r.rowId === rowId) return r;
  return null;
}

const lineColumns = sql`l.batch_id, l.idx, l.custom_id, l.url, l.body, l.body_bytes, l.share_micro_usd, l.request_id, b.account_id, b.key_id, b.hold_id, b.principal`;

/** Takes one due (batch, entry) group and submits it; false when none is due. */
async function submitOne(db: DB): Promise<boolean> {
  const due = (await db.execute(sql`
    select l.batch_id, l.native_route from batch_lines l join batches b on b.id = l.batch_id
     where l.status = 'pending' and l.native_route is not null and l.due_at <= now() and b.status = 'in_progress' and b.expires_at > now()
     limit 1`)) as unknown as { rows: { batch_id: string; native_route: string }[] };
  const g = due.rows[0];
  if (!g) return false;
  const route = await routeOf(g.native_route);
  const api = route && BATCH_APIS[route.upstream.protocol];
  if (!route || !api) {
    await toGateway(db, sql`batch_id = ${g.batch_id} and native_route = ${g.native_route} and status = 'pending'`);
    return true;
  }
  // The group, in order, within the vendor's limits on one batch.
  const sizes = (await db.execute(sql`
    select idx from (select idx, sum(body_bytes) over (order by idx) as upto from batch_lines
      where batch_id = ${g.batch_id} and native_route = ${g.native_route} and status = 'pending' order by idx limit ${api.maxLines}) s
     where upto <= ${api.maxBytes} or idx = (select min(idx) from batch_lines where batch_id = ${g.batch_id} and native_route = ${g.native_route} and status = 'pending')`)) as unknown as { rows: { idx: number }[] };
  const idxs = sizes.rows.map((r) => Number(r.idx));
  if (!idxs.length) return true;
  const id = `vb_${randomBase62(24)}`;
  // Taken in one statement: a line already taken by another instance is not pending any more.
  const taken = await db.transaction(async (tx) => {
    await tx.insert(vendorBatches).values({ id, batchId: g.batch_id, routeId: route.rowId, upstreamId: route.upstream.id, protocol: route.upstream.protocol, status: "submitting", lines: 0, dueAt: new Date(Date.now() + leaseMs()) });
    const res = (await tx.execute(sql`
      update batch_lines l set status = 'running', claim = ${id}, vendor_batch_id = ${id}, attempts = l.attempts + 1, due_at = b.expires_at + interval '${sql.raw(VENDOR_GRACE)}'
        from batches b
       where b.id = l.batch_id and l.batch_id = ${g.batch_id} and l.native_route = ${g.native_route} and l.status = 'pending'
         and l.idx in (${sql.join(idxs.map((i) => sql`${i}`), sql`, `)})
      returning ${lineColumns}`)) as unknown as { rows: Record<string, unknown>[] };
    // Another instance took the group first: no row of ours is left behind.
    if (!res.rows.length) await tx.delete(vendorBatches).where(eq(vendorBatches.id, id));
    else await tx.update(vendorBatches).set({ lines: res.rows.length }).where(eq(vendorBatches.id, id));
    return res.rows;
  });
  if (!taken.length) return true;
  // Each line as the entry would be sent it; one that cannot go this way is the runner's again.
  const lines: VendorLine[] = [];
  const back: number[] = [];
  for (const row of taken) {
    const l = claimedOf(row, id);
    const lp = lineProtocol(l.url);
    const built = lp && l.share > 0 ? await vendorBatchBody(l.principal, route.rowId, { protocol: lp.protocol, parseOpts: lp.parseOpts, body: runnableBody(l.url, l.body), bodyBytes: l.bodyBytes }) : null;
    if (built?.ok) lines.push({ customId: customIdOf(l.idx), url: route.upstream.protocol === "openai" ? "/v1/chat/completions" : l.url, body: built.value.body });
    else back.push(l.idx);
  }
  if (back.length) await toGateway(db, sql`batch_id = ${g.batch_id} and claim = ${id} and status = 'running' and idx in (${sql.join(back.map((i) => sql`${i}`), sql`, `)})`);
  if (!lines.length) {
    await db.update(vendorBatches).set({ status: "failed", error: "no line could be sent to the vendor", endedAt: new Date() }).where(eq(vendorBatches.id, id));
    return true;
  }
  const sent = await api.submit(route.upstream, route.upstreamModel, lines, id);
  if (!sent.ok) {
    logger().warn({ batchId: g.batch_id, upstream: route.upstream.id, status: sent.error.status }, "vendor batch not submitted; its lines go to the gateway runner");
    await giveBack(db, id, `submit: ${sent.error.message}`);
    return true;
  }
  const kept = await db
    .update(vendorBatches)
    .set({ vendorId: sent.value, status: "submitted", lines: lines.length, dueAt: new Date() })
    .where(and(eq(vendorBatches.id, id), eq(vendorBatches.status, "submitting")))
    .returning({ id: vendorBatches.id });
  if (!kept.length) await submittedTooLate(db, id, sent.value, route, api);
  return true;
}

/**
 * The vendor took the batch after this submitter's lease ended. Another instance either found
 * it by its tag (and polls it) or, not finding it, gave its lines to the gateway runner: then the
 * vendor's copy is cancelled, before it runs, so the lines are not paid for twice.
 */
async function submittedTooLate(db: DB, id: string, vendorId: string, route: ModelRoute, api: BatchApi): Promise<void> {
  const [row] = await db.select({ vendorId: vendorBatches.vendorId }).from(vendorBatches).where(eq(vendorBatches.id, id));
  if (row?.vendorId === vendorId) return;
  const c = await api.cancel(route.upstream, vendorId);
  logger().warn({ vendorBatch: id, upstream: route.upstream.id, cancelled: c.ok }, "vendor batch accepted after its lines went back to the gateway runner; cancelled at the vendor");
  await db.update(vendorBatches).set({ error: `accepted late as ${vendorId}; ${c.ok ? "cancelled" : "cancel refused"} at the vendor` }).where(eq(vendorBatches.id, id));
}

/** Lines matching `where` go back to the gateway runner (pending, bound to no vendor). */
async function toGateway(db: DB, where: ReturnType<typeof sql>): Promise<void> {
  await db.execute(sql`update batch_lines set status = 'pending', claim = null, vendor_batch_id = null, native_route = null, due_at = now() where ${where}`);
}

/** A vendor batch that never ran: its lines still held by it go to the gateway runner. */
async function giveBack(db: DB, id: string, error: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`update batch_lines set status = 'pending', claim = null, vendor_batch_id = null, native_route = null, due_at = now() where vendor_batch_id = ${id} and claim = ${id} and status = 'running'`);
    await tx.update(vendorBatches).set({ status: "failed", error: error.slice(0, 1000), endedAt: new Date() }).where(eq(vendorBatches.id, id));
  });
}

/**
 * Takes one due vendor batch (a lease on `due_at`) and advances it: a submitter that died gives
 * its lines back; a cancelled batch's vendor batch is cancelled; an ended one is read and its
 * lines ended. null when none is due; true when it ended.
 */
async function pollOne(db: DB, pollMs: number): Promise<boolean | null> {
  const [vb] = (
    (await db.execute(sql`
    update vendor_batches set due_at = now() + (${leaseMs()}::int * interval '1 millisecond')
     where id = (select id from vendor_batches where status in ('submitting', 'submitted') and due_at <= now() order by due_at limit 1 for update skip locked)
    returning id, batch_id, route_id, status, vendor_id, cancel_requested_at, created_at`)) as unknown as { rows: { id: string; batch_id: string; route_id: string; status: string; vendor_id: string | null; cancel_requested_at: Date | null; created_at: Date }[] }
  ).rows;
  if (!vb) return null;
  const route = await routeOf(vb.route_id);
  const api = route && BATCH_APIS[route.upstream.protocol];
  if (vb.status === "submitting" || !vb.vendor_id) {
    // Its submitter's lease ended without the vendor's id: the vendor may have the batch anyway.
    // Found by its tag, it is polled as if the submitter had kept the id; else its lines go to the
    // gateway runner (a submitter still waiting on the vendor cancels what it is given late).
    const since = new Date(vb.created_at);
    const found = route && api?.find ? await api.find(route.upstream, vb.id, since) : null;
    if (found?.ok && found.value) {
      await db.execute(sql`
        update vendor_batches v set vendor_id = ${found.value}, status = 'submitted', due_at = now(),
               lines = (select count(*) from batch_lines where vendor_batch_id = v.id and claim = v.id and status = 'running')
         where v.id = ${vb.id} and v.status = 'submitting'`);
      return false;
    }
    // A vendor that cannot be asked now is asked again at the next lease, for a while.
    if (found && !found.ok && Date.now() - since.getTime() < FIND_FOR_MS) return false;
    await giveBack(db, vb.id, "submitter gone before the vendor's id was kept");
    return false;
  }
  if (!route || !api) {
    // The entry is gone from the catalog: nothing can poll it; the batch's window closes its lines.
    await db.update(vendorBatches).set({ dueAt: new Date(Date.now() + 3600_000) }).where(eq(vendorBatches.id, vb.id));
    return false;
  }
  const later = () => db.update(vendorBatches).set({ polledAt: new Date(), dueAt: new Date(Date.now() + pollMs) }).where(eq(vendorBatches.id, vb.id));
  const [batch] = await db.select({ cancellingAt: batches.cancellingAt }).from(batches).where(eq(batches.id, vb.batch_id));
  if (batch?.cancellingAt && !vb.cancel_requested_at) {
    const c = await api.cancel(route.upstream, vb.vendor_id);
    if (c.ok) await db.update(vendorBatches).set({ cancelRequestedAt: new Date() }).where(eq(vendorBatches.id, vb.id));
    else logger().warn({ batchId: vb.batch_id, status: c.error.status }, "vendor batch not cancelled; asked again at the next poll");
  }
  const state = await api.poll(route.upstream, vb.vendor_id);
  if (!state.ok) {
    logger().warn({ batchId: vb.batch_id, status: state.error.status }, "vendor batch not polled");
    await later();
    return false;
  }
  if (state.value.state === "running") {
    await later();
    return false;
  }
  if (state.value.state === "failed") {
    await giveBack(db, vb.id, state.value.message);
    return true;
  }
  const { results, missing } = state.value;
  // A result the vendor returned without our key is matched by its position among the lines submitted.
  const position = [...results.keys()].some((k) => k.startsWith("#")) ? await submittedOrder(db, vb.id) : null;
  const resultOf = (idx: number) => results.get(customIdOf(idx)) ?? (position?.has(idx) ? results.get(`#${position.get(idx)}`) : undefined) ?? missing;
  // Only lines this vendor batch still holds: a line ended by an earlier poll (or closed by the window) is not read again.
  const rows = (
    (await db.execute(sql`select ${lineColumns} from batch_lines l join batches b on b.id = l.batch_id where l.vendor_batch_id = ${vb.id} and l.claim = ${vb.id} and l.status = 'running' order by l.idx`)) as unknown as {
      rows: Record<string, unknown>[];
    }
  ).rows;
  for (let i = 0; i < rows.length; i += END_CHUNK) {
    const chunk = rows.slice(i, i + END_CHUNK).map((r) => claimedOf(r, vb.id));
    const ran: Ran[] = [];
    const closed: Record<"cancelled" | "expired", number[]> = { cancelled: [], expired: [] };
    for (const line of chunk) {
      const r = resultOf(line.idx);
      if (r.type === "succeeded") ran.push(await callLine(db, line, { rowId: route.rowId, json: r.json }));
      else if (r.type === "errored") ran.push(failed(line, r, route));
      else closed[r.type === "canceled" ? "cancelled" : "expired"].push(line.idx);
    }
    if (ran.length) await endLines(db, ran);
    for (const status of ["cancelled", "expired"] as const) {
      // Nothing charged: the share comes back with the rest of the hold when the batch ends.
      if (closed[status].length)
        await db.execute(sql`update batch_lines set status = ${status}, claim = null, ended_at = now() where batch_id = ${vb.batch_id} and claim = ${vb.id} and status = 'running' and idx in (${sql.join(closed[status].map((x) => sql`${x}`), sql`, `)})`);
    }
  }
  await db.update(vendorBatches).set({ status: "ended", polledAt: new Date(), endedAt: new Date() }).where(and(eq(vendorBatches.id, vb.id), eq(vendorBatches.status, "submitted")));
  return true;
}

/** The lines a vendor batch was sent, in the order they were sent (idx → position). */
async function submittedOrder(db: DB, id: string): Promise<Map<number, number>> {
  const rows = (await db.execute(sql`select idx from batch_lines where vendor_batch_id = ${id} order by idx`)) as unknown as { rows: { idx: number }[] };
  return new Map(rows.rows.map((r, i) => [Number(r.idx), i]));
}

/** A line the vendor could not run: failed, its share free again (endLines), its error in the client's result. */
function failed(line: Claimed, r: Extract<VendorResult, { type: "errored" }>, route: ModelRoute): Ran {
  // 429 would send the line back to the runner's queue (endLines): the vendor's refusal ends it here.
  const status = r.status === 429 ? 503 : r.status;
  const type = status < 500 ? "invalid_request_error" : "server_error";
  return {
    line,
    status,
    body: { error: { message: r.message.slice(0, 2000), type, code: status < 500 ? "invalid_request" : "upstream_error" } },
    log: { model: String(line.body.model ?? "").slice(0, 200), upstreamId: route.upstream.id, upstreamProtocol: route.upstream.protocol, upstreamModel: route.upstreamModel, status, settlement: "upstream_error", errorCode: status < 500 ? "invalid_request" : "upstream_error" },
    costMicroUsd: 0,
    startedAt: performance.now(),
  };
}
