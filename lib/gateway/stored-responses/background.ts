/**
 * Background responses (`background: true`). The request is written as a `queued` stored
 * response and answered at once; a runner claims the row (queued → in_progress, one winner)
 * and runs it through the text handler with the account's own money path (hold, settle on the
 * usage the upstream reports, the rest of the hold released), failover and retries included.
 * Runs are always streamed upstream: the events are kept (in memory while running, sealed in
 * the row once finished) so `GET /v1/responses/{id}?stream=true&starting_after=N` can resume.
 * A run touches its row every second; that touch is also how it learns of a cancel made on
 * another instance. A queued row nobody claimed (its instance stopped) is claimed by the next
 * sweep; a running row whose touches stopped is failed (its hold goes back with the hold sweeper).
 * docs/decisions/0014-stored-and-background-responses.md says why this is not a row of the video task table.
 */
import { performance } from "node:perf_hooks";
import { and, eq, inArray, lt } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { storedResponses, type StoredResponseStatus } from "../../../db/schema";
import { encryptSecret, decryptSecret } from "../../crypto";
import { visibleTo, type Viewer } from "../../keys/visibility";
import { afterReply } from "../../after-reply";
import { logger } from "../../logger";
import { sleep } from "../../sleep";
import { errors, type ApiError } from "../errors";
import type { Result } from "../../result";
import { json, type GatewayResponse } from "../http";
import { protocolId, nowSeconds } from "../protocols/ids";
import { SSE_HEADERS } from "../sse";
import type { Principal, RouteContext } from "../types";
import { renderUsage } from "../protocols/responses/render";
import type { RequestLogFields, Settlement } from "../../billing/port";
import type { Usage } from "../canonical";
import { partialOutput } from "./partial";
import { runResponse } from "./run-response";
import type { Expanded } from "./history";
import { getStoredResponse, writeStoredResponse, type Item } from "./store";
import { processSingleton } from "../../process-singleton";

const TOUCH_MS = 1000;
/** A running row not touched for this long belongs to a stopped instance. */
const STALE_MS = 30_000;

interface BackgroundRequest {
  body: Record<string, unknown>;
  bodyBytes: number;
  previousId: string | null;
  replayedCounted: boolean;
  replayed: number;
  ownItemIds: string[];
  principal: Principal;
  path: string;
  requestId: string;
}

interface Live {
  events: string[];
  waiters: Set<() => void>;
  done: boolean;
  abort: AbortController;
}

const live = processSingleton("gateway.backgroundResponses", () => new Map<string, Live>());

function queuedObject(id: string, body: Record<string, unknown>, previousId: string | null): Record<string, unknown> {
  return {
    id,
    object: "response",
    created_at: nowSeconds(),
    status: "queued",
    background: true,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: previousId,
    store: true,
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    text: body.text ?? { format: { type: "text" } },
    truncation: "disabled",
    metadata: body.metadata ?? {},
    usage: null,
  };
}

export async function startBackground(
  db: DB,
  ctx: RouteContext,
  path: string,
  input: { body: Record<string, unknown>; bodyBytes: number; expanded: Expanded; previousId: string | null; replayedCounted: boolean },
): Promise<GatewayResponse> {
  const id = protocolId.response();
  const stream = input.body.stream === true;
  const request: BackgroundRequest = {
    body: { ...input.body, stream: true },
    bodyBytes: input.bodyBytes,
    previousId: input.previousId,
    replayedCounted: input.replayedCounted,
    replayed: input.expanded.replayed,
    ownItemIds: input.expanded.ownItemIds,
    principal: ctx.principal,
    path,
    requestId: ctx.requestId,
  };
  const response = queuedObject(id, input.body, input.previousId);
  // Written before the answer: the id must exist the moment the client holds it.
  await writeStoredResponse(db, {
    id,
    accountId: ctx.principal.accountId,
    keyId: ctx.principal.keyId,
    status: "queued",
    model: String(input.body.model ?? ""),
    upstreamId: null,
    background: true,
    response,
    input: input.expanded.storedInput,
    request: request as unknown as Record<string, unknown>,
    itemIds: input.expanded.ownItemIds,
  });
  const l: Live = { events: [], waiters: new Set(), done: false, abort: new AbortController() };
  live().set(id, l);
  // Runs after the reply, in this invocation (a serverless platform keeps the instance up for it).
  afterReply(
    new Promise((r) => setImmediate(r))
      .then(() => runBackground(db, id))
      .catch((err) => logger().error({ err, responseId: id }, "background response failed")),
  );
  if (stream) return { status: 200, headers: { ...SSE_HEADERS }, body: follow(db, ctx.principal, id, -1) };
  return json(200, response);
}

type Sealed = { response: Record<string, unknown>; input: Item[]; request: BackgroundRequest };

/** How a run ended: its final response (when the upstream finished one), or why it failed. */
interface RunOutcome {
  final: Record<string, unknown> | null;
  upstreamOf: () => string | null;
  failure: ApiError | null;
  /** What the run was charged (set once it settled). */
  settled: Settlement | null;
}

/** Claims and runs one queued background response (a no-op when another runner has it). */
export async function runBackground(db: DB, id: string): Promise<void> {
  const [row] = await db
    .update(storedResponses)
    .set({ status: "in_progress", updatedAt: new Date() })
    .where(and(eq(storedResponses.id, id), eq(storedResponses.status, "queued")))
    .returning();
  if (!row) return;
  const content = JSON.parse(decryptSecret(row.sealed)) as Sealed;
  const l = live().get(id) ?? { events: [], waiters: new Set<() => void>(), done: false, abort: new AbortController() };
  live().set(id, l);
  const touch = startTouch(db, id, l);
  let outcome: RunOutcome;
  try {
    outcome = await execute(db, id, content, l);
  } finally {
    touch.stop();
  }
  const [now] = await db.select({ status: storedResponses.status }).from(storedResponses).where(eq(storedResponses.id, id));
  await seal(db, id, content, l, outcome, l.abort.signal.aborted || now?.status === "cancelled");
  l.done = true;
  wake(l);
  setTimeout(() => live().delete(id), 60_000).unref();
}

function wake(l: Live) {
  for (const w of l.waiters) w();
  l.waiters.clear();
}

/**
 * Touches the row every second: proof of life for the sweeper, the events so far (so a resume on
 * another instance follows the run), and news of a cancel made elsewhere (the touch finds the row
 * no longer in progress and aborts the run).
 */
function startTouch(db: DB, id: string, l: Live): { stop(): void } {
  let persisted = 0;
  const timer = setInterval(() => {
    const events = l.events.length > persisted ? l.events.slice() : null;
    void db
      .update(storedResponses)
      .set({ updatedAt: new Date(), ...(events ? { sealedEvents: encryptSecret(JSON.stringify(events)) } : {}) })
      .where(and(eq(storedResponses.id, id), eq(storedResponses.status, "in_progress")))
      .returning({ id: storedResponses.id })
      .then((r) => {
        if (events && r.length) persisted = events.length;
        if (!r.length && !l.abort.signal.aborted) l.abort.abort();
      })
      .catch(() => undefined);
  }, TOUCH_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Runs the request through the text handler with the account's money path, keeping every event. */
async function execute(db: DB, id: string, content: Sealed, l: Live): Promise<RunOutcome> {
  const req = content.request;
  const ctx = {
    req: { method: "POST", url: new URL(`http://gateway${req.path}`), headers: {}, body: null, signal: l.abort.signal },
    requestId: req.requestId,
    startedAt: performance.now(),
    params: {},
    principal: req.principal,
    observe: {},
    settleAfterReply: false,
  } as unknown as RouteContext;
  const out: RunOutcome = { final: null, upstreamOf: () => null, failure: null, settled: null };
  try {
    const res = await runResponse({
      db,
      ctx,
      path: req.path,
      body: req.body,
      bodyBytes: req.bodyBytes,
      expanded: { upstreamInput: [], storedInput: content.input, ownItemIds: req.ownItemIds, replayed: req.replayed },
      previousId: req.previousId,
      store: true,
      replayedCounted: req.replayedCounted,
      signal: l.abort.signal,
      id,
      onTerminal: (r, upstream) => {
        out.final = r;
        out.upstreamOf = upstream;
      },
      onSettled: (s) => void (out.settled = s),
    });
    if (res.status !== 200 || typeof res.body === "string" || !res.body || !(Symbol.asyncIterator in (res.body as object))) {
      const text = typeof res.body === "string" ? res.body : "";
      const err = (safeJson(text) as { error?: { code?: string; message?: string } } | null)?.error;
      out.failure = { status: res.status, type: "server_error", code: err?.code ?? "server_error", message: err?.message ?? "The response failed." };
    } else {
      for await (const chunk of res.body as AsyncIterable<string | Uint8Array>) {
        l.events.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
        wake(l);
      }
    }
  } catch (err) {
    logger().error({ err, responseId: id }, "background response run failed");
    out.failure = errors.internal(req.requestId);
  }
  return out;
}

/**
 * Writes the run's end into the row: cancelled, the upstream's final status, or failed with why.
 * A cancelled run shows what it produced before the cancel and the usage it was charged for, so
 * the charge and what the client can see agree (decision 0038).
 */
async function seal(db: DB, id: string, content: Sealed, l: Live, o: RunOutcome, cancelled: boolean) {
  let status: StoredResponseStatus;
  let response: Record<string, unknown>;
  if (cancelled) {
    status = "cancelled";
    const shown = o.final ?? { output: partialOutput(l.events), usage: o.settled ? renderUsage(loggedUsage(o.settled.log), o.settled.costMicroUsd) : null };
    response = { ...content.response, ...shown, id, status };
  } else if (o.final) {
    status = o.final.status as StoredResponseStatus;
    response = { ...o.final, id };
  } else {
    status = "failed";
    const e = o.failure ?? errors.upstream("The upstream stream failed.");
    response = { ...content.response, id, status, error: { code: e.code, message: e.message } };
  }
  const output = (response.output as Item[] | undefined) ?? [];
  await db
    .update(storedResponses)
    .set({
      status,
      upstreamId: o.upstreamOf(),
      itemIds: [...content.request.ownItemIds, ...output.map((i) => i.id).filter((i): i is string => typeof i === "string")],
      sealed: encryptSecret(JSON.stringify({ response, input: content.input })),
      sealedEvents: l.events.length ? encryptSecret(JSON.stringify(l.events)) : null,
      updatedAt: new Date(),
    })
    .where(and(eq(storedResponses.id, id), inArray(storedResponses.status, ["in_progress", "cancelled"])));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function seqOf(event: string): number {
  const m = /"sequence_number":(\d+)/.exec(event);
  return m ? Number(m[1]) : -1;
}

/**
 * The events of a background response after `startingAfter`, following it live while it runs:
 * from memory on the instance that runs it, from the row (events saved every second) elsewhere.
 */
export async function* follow(db: DB, who: Viewer, id: string, startingAfter: number): AsyncGenerator<string> {
  const l = live().get(id);
  if (l) {
    let i = 0;
    for (;;) {
      while (i < l.events.length) {
        const e = l.events[i++]!;
        if (seqOf(e) > startingAfter) yield e;
      }
      if (l.done) return;
      await new Promise<void>((r) => l.waiters.add(r));
    }
  }
  let sent = 0;
  for (let waited = 0; waited < 30 * 60_000; waited += 250) {
    const [row] = await db
      .select({ status: storedResponses.status, events: storedResponses.sealedEvents })
      .from(storedResponses)
      .where(and(eq(storedResponses.id, id), visibleTo(who, storedResponses)));
    if (!row) return;
    const events = row.events ? (JSON.parse(decryptSecret(row.events)) as string[]) : [];
    for (; sent < events.length; sent++) if (seqOf(events[sent]!) > startingAfter) yield events[sent]!;
    if (row.status !== "queued" && row.status !== "in_progress") return;
    await sleep(250);
  }
}

/** POST /v1/responses/{id}/cancel. */
export async function cancelBackground(db: DB, who: Viewer, id: string): Promise<Result<Record<string, unknown>, ApiError>> {
  const r = await getStoredResponse(db, who, id);
  if (!r) return { ok: false, error: { status: 404, type: "invalid_request", code: "response_not_found", message: `Response with id '${id.slice(0, 200)}' not found.`, param: "response_id" } };
  if (!r.background) return { ok: false, error: errors.invalidRequest(`Response '${id}' was not created in background mode; only background responses can be cancelled.`, "response_id") };
  const done = await db
    .update(storedResponses)
    .set({ status: "cancelled", updatedAt: new Date() })
    .where(and(eq(storedResponses.id, id), visibleTo(who, storedResponses), inArray(storedResponses.status, ["queued", "in_progress"])))
    .returning({ id: storedResponses.id });
  if (done.length) {
    live().get(id)?.abort.abort();
    const l = live().get(id);
    // A run on this instance writes its partial output; wait for it briefly so the answer shows it.
    for (let i = 0; l && !l.done && i < 40; i++) await sleep(50);
  }
  const after = await getStoredResponse(db, who, id);
  return { ok: true, value: { ...(after ?? r).response, status: after?.status ?? "cancelled" } };
}

/**
 * The sweep (lib/runtime/jobs.ts, and the cron pass in lib/runtime/cron.ts): claims queued rows
 * nobody started, and fails running rows whose runner stopped touching them — a process that
 * died, or a serverless function stopped at its duration limit (a serverless instance is never
 * frozen while a run is in progress: the run is registered with the platform, lib/after-reply.ts).
 */
export async function sweepBackgroundResponses(db: DB, now = Date.now(), until = Infinity): Promise<number> {
  const stale = new Date(now - STALE_MS);
  const queued = await db
    .select({ id: storedResponses.id })
    .from(storedResponses)
    .where(and(eq(storedResponses.background, true), eq(storedResponses.status, "queued"), lt(storedResponses.updatedAt, new Date(now - 5_000))))
    .limit(20);
  // `until` (a cron pass's budget): no new run starts after it; the next pass takes the rest.
  for (const q of queued) {
    if (Date.now() >= until) break;
    await runBackground(db, q.id).catch((err) => logger().error({ err, responseId: q.id }, "background response failed"));
  }
  const dead = await db
    .update(storedResponses)
    .set({ status: "failed", updatedAt: new Date(now) })
    .where(and(eq(storedResponses.background, true), eq(storedResponses.status, "in_progress"), lt(storedResponses.updatedAt, stale)))
    .returning({ id: storedResponses.id });
  return queued.length + dead.length;
}

/** The usage a settlement's log row records, as the canonical usage the renderers take. */
function loggedUsage(l: RequestLogFields): Usage {
  return { inputTokens: l.inputTokens ?? 0, outputTokens: l.outputTokens ?? 0, cacheReadTokens: l.cacheReadTokens, cacheWrite5mTokens: l.cacheWrite5mTokens, cacheWrite1hTokens: l.cacheWrite1hTokens, reasoningTokens: l.reasoningTokens };
}
