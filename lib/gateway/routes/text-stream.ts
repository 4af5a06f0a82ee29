/**
 * A streamed text answer. The upstream is opened and its first event read before the client
 * gets a status, so a failure before anything reached the client can still be retried, failed
 * over and answered with a status. Then events are metered as they pass (a cut stream is billed
 * for the prompt and the output generated, never for error text) and settled once at the end.
 */
import { errorResponse, errors, type ApiError } from "../errors";
import type { GatewayResponse } from "../http";
import { SSE_HEADERS } from "../sse";
import { failover } from "../upstreams/failover";
import { UpstreamStreamError } from "../upstreams/sse-reader";
import type { UpstreamChunk } from "../upstreams/text-types";
import type { ModelRoute } from "../model-route";
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

  const finish = (why?: SettlementReason) => {
    settling ??= (async () => {
      const reason: SettlementReason = why ?? (meter.final !== null ? "completed" : failure ? "upstream_error" : "client_disconnect");
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
    })().catch(() => undefined);
    return settling;
  };
  const onAbort = () => {
    if (meter.final === null) void finish("client_disconnect");
  };
  signal.addEventListener("abort", onAbort, { once: true });

  const render = (chunk: UpstreamChunk): string[] => {
    let cost: number | undefined;
    for (const ev of chunk.events) {
      meter.observe(ev);
      if (ev.type === "done") {
        // The client sees the counts it is billed on (the upstream's gaps filled by our counts).
        const usage = meter.usage();
        ev.usage = usage;
        ev.costMicroUsd = cost = run.costOf(usage, route);
      }
    }
    if (!plan.call.passthrough) return chunk.events.flatMap((ev) => encoder.encode(ev));
    return plan.adapter.passthrough!.renderEvent(chunk, plan.call, cost);
  };

  try {
    let chunk: UpstreamChunk = first;
    for (;;) {
      for (const s of render(chunk)) {
        ttftMs ??= run.elapsed();
        yield s;
      }
      if (signal.aborted) break;
      const n = await it.next();
      if (n.done) break;
      chunk = n.value;
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
