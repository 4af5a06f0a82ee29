/**
 * A streamed text answer. The upstream is opened and its first event read before the client
 * gets a status, so a failure before anything reached the client can still be retried, failed
 * over and answered with a status. Then events are metered as they pass (a cut stream is billed
 * for the prompt and the output generated, never for error text) and settled once at the end.
 */
import type { StreamEvent } from "../canonical";
import { errorResponse, errors, type ApiError } from "../errors";
import type { GatewayResponse } from "../http";
import { SSE_HEADERS } from "../sse";
import { failover } from "../upstreams/failover";
import { UpstreamStreamError } from "../upstreams/sse-reader";
import type { UpstreamChunk } from "../upstreams/text-types";
import type { ModelRoute } from "../model-route";
import { StreamGate } from "../guardrails/stream-gate";
import { StreamMeter } from "./text-meter";
import type { Plan } from "./text-plan";
import { usageFields, type TextRun } from "./text-run";
import type { SettlementReason } from "./text-types";

export async function streamText(run: TextRun): Promise<GatewayResponse> {
  const { tc } = run;
  const opened = await failover(run.usable, (route) => openStream(run, route), run.retry);
  if (!opened.ok) {
    await run.settleFailure(opened.error, opened.route);
    return errorResponse(opened.error, tc.protocol.errorStyle);
  }
  const route = opened.route!;
  run.remember(route);
  // Object.assign, not { ...SSE_HEADERS, ...served }: decision 0033.
  return { status: 200, headers: Object.assign({}, SSE_HEADERS, run.servedHeaders(route)), body: relay(run, route, opened.value) };
}

interface Opened {
  it: AsyncIterator<UpstreamChunk>;
  first: UpstreamChunk;
}

async function openStream(run: TextRun, route: ModelRoute) {
  const plan = run.plan(route);
  const s = await plan.adapter.stream(plan.call, { signal: run.tc.signal, timeoutMs: run.timeoutOf(route) });
  if (!s.ok) return s;
  const it = s.value[Symbol.asyncIterator]();
  try {
    const first = await it.next();
    if (first.done) return { ok: false as const, retryable: true, error: errors.upstream("The upstream sent an empty stream.") };
    return { ok: true as const, value: { it, first: first.value } satisfies Opened };
  } catch (e) {
    void it.return?.();
    if (e instanceof UpstreamStreamError) return { ok: false as const, retryable: e.retryable, error: e.apiError };
    throw e;
  }
}

/** The client's bytes: each upstream event metered, rendered (converted or passed through) and sent. */
async function* relay(run: TextRun, route: ModelRoute, { it, first }: Opened): AsyncGenerator<string> {
  const { req, tc } = run;
  const signal = tc.signal;
  const plan: Plan = run.plan(route);
  const meter = new StreamMeter(req);
  const encoder = tc.protocol.createStreamEncoder({ model: req.model, request: req });
  let ttftMs: number | null = null;
  let failure: ApiError | null = null;
  let settling: Promise<unknown> | null = null;
  // post_response guardrails hold the chunks until checked (docs/guardrails.md); a rewrite is re-encoded, never passed through.
  const gate = run.guard?.post.length ? new StreamGate(run.guard) : null;
  const reencode = !plan.call.passthrough || (gate !== null && run.guard!.rewrites);
  let blocked = false;
  // A cacheable stream keeps what the client was sent, to replay the same events (docs/guardrails.md).
  const kept: string[] | null = run.cache?.state === "miss" ? [] : null;

  const finish = (why?: SettlementReason) => {
    settling ??= (async () => {
      const reason: SettlementReason = why ?? (blocked ? "guardrail_blocked" : meter.final !== null ? "completed" : failure ? "upstream_error" : "client_disconnect");
      const usage = meter.usage();
      // An upstream that died before producing anything costs the client nothing.
      const free = reason === "upstream_error" && !meter.sawOutput;
      await run.settle({
        costMicroUsd: free ? 0 : run.costOf(usage, route),
        reason,
        status: failure ? failure.status : 200,
        errorCode: failure?.code,
        route,
        ...(free ? { inputTokens: 0, outputTokens: 0, usageEstimated: false } : usageFields(meter.final, usage)),
        ttftMs,
        // The stream's last bytes need no balance: they go before the commit, like a
        // non-streamed reply's (decision 0006; only where the process outlives the reply).
      }, { early: true });
      if (kept && reason === "completed" && !failure) run.cache!.keep({ stream: true, contentType: SSE_HEADERS["content-type"], events: kept, costMicroUsd: run.costOf(usage, route), servedModel: route.modelId });
    })().catch(() => undefined);
    return settling;
  };
  const onAbort = () => {
    if (meter.final === null) void finish("client_disconnect");
  };
  signal.addEventListener("abort", onAbort, { once: true });

  /** Meters a chunk as it arrives; the charge rides on its `done` event. */
  const observe = (chunk: UpstreamChunk): number | undefined => {
    let cost: number | undefined;
    const events = chunk.events;
    for (let i = 0; i < events.length; i++) {
      const ev = events[i]!;
      meter.observe(ev);
      run.capture?.observe(ev);
      if (ev.type === "done") {
        // The client sees the counts it is billed on (the upstream's gaps filled by our counts)
        // and the cost, on a billed copy that takes the event's place: the decoder's own event
        // is left as the upstream said it.
        const usage = meter.usage();
        cost = run.costOf(usage, route);
        events[i] = { type: "done", stopReason: ev.stopReason, stopSequence: ev.stopSequence, usage, costMicroUsd: cost } satisfies StreamEvent;
      }
    }
    return cost;
  };
  const encode = (chunk: UpstreamChunk, cost: number | undefined): string[] =>
    reencode ? chunk.events.flatMap((ev) => encoder.encode(ev)) : plan.adapter.passthrough!.renderEvent(chunk, plan.call, cost);
  const render = (chunk: UpstreamChunk): string[] => encode(chunk, observe(chunk));
  /** Under guardrails: metered now, sent once checked (`null`: the stream ended, check the whole answer). */
  const gated = async (chunk: UpstreamChunk | null): Promise<string[]> => {
    if (chunk) {
      observe(chunk);
      gate!.push(chunk);
    }
    const g = await gate!.take(chunk === null, signal);
    if (g.ok) return g.value.flatMap((c) => encode(c, costOf(c)));
    // No [DONE] and no end event: the protocol's error event ends the stream.
    blocked = true;
    failure = g.error;
    return encoder.error(g.error);
  };

  try {
    let chunk: UpstreamChunk | null = first;
    while (chunk) {
      for (const s of gate ? await gated(chunk) : render(chunk)) {
        ttftMs ??= run.elapsed();
        kept?.push(s);
        yield s;
      }
      if (signal.aborted || blocked) break;
      const n = await it.next();
      chunk = n.done ? null : n.value;
      if (!chunk && gate)
        for (const s of await gated(null)) {
          ttftMs ??= run.elapsed();
          kept?.push(s);
          yield s;
        }
    }
  } catch (e) {
    if (!signal.aborted) {
      failure = e instanceof UpstreamStreamError ? e.apiError : errors.upstream("The upstream stream failed.");
      for (const s of encoder.error(failure)) yield s;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    void it.return?.();
    // Where the process outlives the reply, the client's last bytes go before the settlement
    // starts, as a non-streamed reply goes before its commit: the end of the stream is not
    // kept waiting for the log row's and the charge's bookkeeping (decision 0006).
    if (tc.settleAfterReply) setImmediate(finish);
    else await finish();
  }
}

/** The charge a chunk's `done` event carries (passthrough puts it into the vendor's usage event). */
function costOf(chunk: UpstreamChunk): number | undefined {
  for (const ev of chunk.events) if (ev.type === "done") return ev.costMicroUsd;
  return undefined;
}
