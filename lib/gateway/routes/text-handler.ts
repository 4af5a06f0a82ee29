/**
 * One text-generation request, whatever the inbound protocol: parse → routes → hold → upstream
 * (retries and failover before the first byte) → encode → settle. Framework-free and
 * database-free: the catalog and the money come in through TextDeps.
 */
import type { ModelPrice } from "../../../db/schema";
import { formatUsd } from "../../billing/money";
import { affordableMaxTokens, textCostMicro, textHoldMicro, textPriceSnapshot } from "../../billing/text-cost";
import type { Usage } from "../canonical";
import { errorResponse, errors, type ApiError } from "../errors";
import type { GatewayResponse } from "../http";
import { SSE_HEADERS, sseData, sseEvent } from "../protocols/sse";
import { applyConversionPolicy } from "../conversion/policy";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { promptTokenBound, rawBodyTokenBound, estimatePromptTokens } from "../tokens";
import { UpstreamStreamError } from "../upstreams/sse-reader";
import { textAdapterFor } from "../upstreams/text-adapters";
import { failover, TEXT_RETRY } from "../upstreams/failover";
import type { ClientHeaders, Inexpressible, PreparedCall, TextAdapter, UpstreamChunk } from "../upstreams/text-types";
import type { ModelRoute } from "../model-route";
import { affinityKey, orderByAffinity, rememberAffinity } from "./text-affinity";
import { health, routeFor } from "../health";
import { completeUsage, StreamMeter } from "./text-meter";
import type { SettlementReason, TextDeps, TextSettlement } from "./text-types";

/** Output cap when neither the request nor the model names one; it also bounds the hold. */
export const FALLBACK_MAX_OUTPUT_TOKENS = 4096;
export const DEFAULT_TEXT_TIMEOUT_MS = 120_000;

export interface TextCall {
  protocol: InboundProtocol;
  /** The parsed JSON body. */
  body: unknown;
  /** Its size in bytes (bounds the prompt of a passthrough request). */
  bodyBytes: number;
  parseOpts?: ParseOptions;
  signal: AbortSignal;
  /** performance.now() at arrival. */
  startedAt: number;
  /** The client's headers: a passthrough forwards vendor ones from an allow-list. */
  headers?: ClientHeaders;
}

interface Plan {
  adapter: TextAdapter;
  call: PreparedCall;
  /** Client field names dropped as hints for this route (x-gateway-dropped-params). */
  dropped: string[];
}

/** Names every hint the serving route dropped (docs/conversion-policy.md). */
export const DROPPED_PARAMS_HEADER = "x-gateway-dropped-params";
/** The model that served (an alias's target, whose price was charged). */
export const SERVED_MODEL_HEADER = "x-gateway-model";

export async function handleText(tc: TextCall, deps: TextDeps): Promise<GatewayResponse> {
  const { protocol, signal } = tc;
  const style = protocol.errorStyle;
  const base = {
    inboundProtocol: protocol.name,
    stream: tc.parseOpts?.stream ?? (typeof tc.body === "object" && tc.body !== null && (tc.body as { stream?: unknown }).stream === true),
  };
  const elapsed = () => Math.round(performance.now() - tc.startedAt);
  const reject = async (err: ApiError, reason: SettlementReason, model: string | null, route: ModelRoute | null = null) => {
    await deps.billing.settle({
      ...base,
      hold: null,
      costMicroUsd: 0,
      reason,
      status: err.status,
      errorCode: err.code,
      model,
      route,
      inputTokens: 0,
      outputTokens: 0,
      usageEstimated: false,
      priceSnapshot: route?.price ?? null,
      latencyMs: elapsed(),
      ttftMs: null,
    });
    return errorResponse(err, style);
  };

  const parsed = protocol.parseRequest(tc.body, tc.parseOpts);
  if (!parsed.ok) return reject(parsed.error, "invalid_request", modelOf(tc.body, tc.parseOpts));
  const req = parsed.value;
  base.stream = req.stream;

  const resolved = await deps.resolveRoutes(req.model);
  if (!resolved.ok) return reject(resolved.error, "rejected", req.model);
  const routes = resolved.routes;
  if (!routes.length) return reject(errors.modelNotFound(req.model), "rejected", req.model);

  // The cap both bounds the hold and goes upstream, so the hold is a true worst case.
  if (req.maxOutputTokens === undefined) {
    const defaults = routes.map((r) => r.defaultMaxTokens ?? 0).filter((n) => n > 0);
    req.maxOutputTokens = defaults.length ? Math.max(...defaults) : FALLBACK_MAX_OUTPUT_TOKENS;
    // Never below the client's own thinking budget (thinking counts toward the cap).
    const budget = req.reasoning?.enabled ? req.reasoning.budgetTokens : undefined;
    if (budget !== undefined && budget >= req.maxOutputTokens) req.maxOutputTokens = budget + FALLBACK_MAX_OUTPUT_TOKENS;
  }

  const plans = new Map<ModelRoute, Plan>();
  let firstRefusal: Inexpressible | null = null;
  for (const route of routes) {
    const adapter = textAdapterFor(route.upstream.protocol);
    if (!adapter) continue;
    const passthrough = adapter.passthroughFor === protocol.name;
    let prepared: ReturnType<TextAdapter["prepare"]>;
    let dropped: string[] = [];
    if (passthrough) prepared = adapter.prepare(route, req, tc.body as Record<string, unknown>, tc.headers);
    else if (req.unconvertible?.length)
      prepared = { ok: false, field: req.unconvertible[0]!, message: "cannot be converted to this model's upstream protocol" };
    else {
      // The conversion policy: hints the target lacks are dropped (or refused on a strict model).
      const policy = applyConversionPolicy(req, { caps: adapter.capabilities, upstreamModel: route.upstreamModel, strict: route.strict });
      // Media the target cannot take by URL is fetched first (once per request, for every entry).
      const media = policy.ok && adapter.inlineMedia ? await adapter.inlineMedia(policy.request) : null;
      if (!policy.ok) prepared = policy;
      else if (media && !media.ok) prepared = media;
      else {
        prepared = adapter.prepare(route, media ? media.value : policy.request);
        dropped = policy.dropped;
        if (prepared.ok && prepared.value.dropped?.length) {
          if (route.strict) prepared = { ok: false, field: prepared.value.dropped[0]!, message: "cannot be honoured by this model's upstream, and this model refuses hints (strict)" };
          else dropped = [...dropped, ...prepared.value.dropped];
        }
      }
    }
    if (prepared.ok) plans.set(route, { adapter, call: prepared.value, dropped: dropped.map((f) => protocol.fieldName(f)) });
    else firstRefusal ??= prepared;
  }
  let usable = routes.filter((r) => plans.has(r));
  if (!usable.length) {
    const err = firstRefusal
      ? errors.invalidRequest(`${protocol.fieldName(firstRefusal.field)}: ${firstRefusal.message}`, protocol.fieldName(firstRefusal.field))
      : errors.upstream("No upstream that can serve this model is configured.");
    return reject(err, firstRefusal ? "invalid_request" : "upstream_error", req.model, routes[0]!);
  }

  const anyPassthrough = usable.some((r) => plans.get(r)!.call.passthrough);
  const bound = anyPassthrough ? rawBodyTokenBound(tc.bodyBytes, req) : promptTokenBound(req);
  // An alias with context fallback skips targets whose window the prompt bound exceeds (none fit: all are tried).
  if (resolved.alias?.contextFallback) {
    const fit = usable.filter((r) => !r.contextWindow || bound <= r.contextWindow);
    if (fit.length) usable = fit;
  }

  // Several entries: the one holding this key's prompt prefix in its cache goes first unless its
  // circuit is open; otherwise tiers, weights and circuits decide (health).
  let affinity: string | null = null;
  let ordering: "sticky" | "order" | null = null;
  let prefer: ModelRoute | null = null;
  if (usable.length > 1) ordering = "order";
  if (usable.length > 1 && deps.affinityScope) {
    affinity = affinityKey(deps.affinityScope, req);
    const sticky = orderByAffinity(affinity, usable);
    if (sticky.routing === "sticky") prefer = sticky.routes[0]!;
  }
  const routePlan = routeFor<ModelRoute>(health(), { prefer });
  /** The configured first entry: its price is the hold's base (the charge is the serving entry's). */
  const first = usable[0]!;
  /** The log row's `routing`: how the serving entry was chosen (null with a single entry). */
  const routingOf = (served: ModelRoute | null | undefined) => {
    if (ordering === null) return null;
    if (served && served !== routePlan.first()) return "failover";
    return prefer && served === prefer ? "sticky" : "order";
  };
  const remember = (served: ModelRoute | null | undefined) => {
    if (affinity && served) rememberAffinity(affinity, served.rowId, req);
  };

  const price: ModelPrice = first.price;
  // Several choices (`n`, `candidateCount`, passthrough only) each take up to the cap.
  const outputCap = req.maxOutputTokens * Math.max(1, req.n ?? 1);
  // An alias's targets have their own prices: the hold covers the dearest, the charge is the server's.
  let hold = textHoldMicro(bound, outputCap, price);
  for (const r of usable) if (r.price !== price) hold = Math.max(hold, textHoldMicro(bound, outputCap, r.price));
  // Token and concurrency limits reserve the same worst case; the settlement gives back the rest.
  const admitted = deps.admitTokens ? await deps.admitTokens(bound + outputCap) : null;
  if (admitted && !admitted.ok) return reject(admitted.error, "rejected", req.model, first);
  const admission = admitted?.admission;
  const reserved = await deps.billing.reserve(hold);
  if (!reserved.ok) {
    admission?.release(0);
    const err = reserved.availableMicroUsd === undefined ? reserved.error : whatWouldFit(reserved.error, protocol, bound, req.maxOutputTokens, hold, reserved.availableMicroUsd, price);
    return reject(err, "rejected", req.model, usable[0]!);
  }
  const held = reserved.hold;

  /** The charge is the serving entry's price (an alias's targets may differ). */
  const costOf = (u: Usage, served: ModelRoute | null | undefined) => Math.min(hold, textCostMicro(u, (served ?? first).price));
  const timeoutOf = (r: ModelRoute) => r.upstream.timeoutMs ?? deps.defaultTimeoutMs ?? DEFAULT_TEXT_TIMEOUT_MS;
  /** The request-log row names the hints dropped for the entry that served (as the header does). */
  const droppedOf = (served: ModelRoute | null | undefined) => (served && plans.get(served)?.dropped.join(", ")) || null;
  const settle = (s: Omit<TextSettlement, "hold" | "inboundProtocol" | "stream" | "model" | "priceSnapshot" | "latencyMs">, opts?: { early?: boolean }) => {
    admission?.release(s.inputTokens + s.outputTokens);
    const servedModel = s.route && s.route.modelId !== req.model ? s.route.modelId : null;
    return deps.billing.settle(
      { ...base, ...s, hold: held, model: req.model, servedModel, priceSnapshot: textPriceSnapshot((s.route ?? first).price), latencyMs: elapsed(), routing: routingOf(s.route), droppedParams: droppedOf(s.route), routeTrace: routePlan.trace() },
      opts,
    );
  };
  /** Headers of every answer that reached an upstream: the serving model and the token budget. */
  const servedHeaders = (served: ModelRoute): Record<string, string> => ({ [SERVED_MODEL_HEADER]: served.modelId, ...admission?.headers });

  const retry = { ...(deps.retry ?? TEXT_RETRY), signal, ...routePlan.hooks };
  if (!req.stream) {
    const r = await failover(usable, (route) => plans.get(route)!.adapter.complete(plans.get(route)!.call, { signal, timeoutMs: timeoutOf(route) }), retry);
    if (!r.ok) {
      // A client that left while we waited still cost us the prompt; an upstream failure costs nothing.
      const gone = signal.aborted;
      const input = gone ? estimatePromptTokens(req) : 0;
      await settle({ costMicroUsd: gone ? costOf({ inputTokens: input, outputTokens: 0 }, r.route) : 0, reason: gone ? "client_disconnect" : "upstream_error", status: r.error.status, errorCode: r.error.code, route: r.route, inputTokens: input, outputTokens: 0, usageEstimated: gone, ttftMs: null });
      return errorResponse(r.error, style);
    }
    const plan = plans.get(r.route!)!;
    remember(r.route);
    const resp = r.value.response;
    const usage = completeUsage(resp.usage, req, () => resp.content.map((p) => (p.type === "tool_call" ? p.arguments : p.text)).join(""));
    const cost = costOf(usage, r.route);
    const settled = await settle({ costMicroUsd: cost, reason: "completed", status: 200, route: r.route, ...usageFields(resp.usage, usage), ttftMs: elapsed() }, { early: true });
    let body: unknown;
    // Passthrough keeps the upstream's JSON, unless we had to count usage ourselves (it has none to show).
    if (plan.call.passthrough && r.value.raw && !usage.estimated) {
      plan.adapter.injectCost?.(r.value.raw, settled.chargedMicroUsd);
      body = r.value.raw;
    } else body = protocol.renderResponse({ ...resp, usage }, { model: req.model, request: req, costMicroUsd: settled.chargedMicroUsd });
    const headers: Record<string, string> = { "content-type": "application/json", "x-gateway-cost-usd": formatUsd(settled.chargedMicroUsd), ...servedHeaders(r.route!) };
    if (plan.dropped.length) headers[DROPPED_PARAMS_HEADER] = plan.dropped.join(", ");
    if (settled.balanceAfterMicroUsd !== null) headers["x-gateway-balance-usd"] = formatUsd(settled.balanceAfterMicroUsd);
    return { status: 200, headers, body: JSON.stringify(body) };
  }

  // Streams: open the upstream and read its first event before answering, so that a failure
  // before anything reached the client can still be retried, failed over, and answered with a status.
  const opened = await failover(
    usable,
    async (route) => {
      const plan = plans.get(route)!;
      const s = await plan.adapter.stream(plan.call, { signal, timeoutMs: timeoutOf(route) });
      if (!s.ok) return s;
      const it = s.value[Symbol.asyncIterator]();
      try {
        const first = await it.next();
        if (first.done) return { ok: false as const, retryable: true, error: errors.upstream("The upstream sent an empty stream.") };
        return { ok: true as const, value: { it, first: first.value, plan } };
      } catch (e) {
        void it.return?.();
        if (e instanceof UpstreamStreamError) return { ok: false as const, retryable: e.retryable, error: e.apiError };
        throw e;
      }
    },
    retry,
  );
  if (!opened.ok) {
    const gone = signal.aborted;
    const input = gone ? estimatePromptTokens(req) : 0;
    await settle({ costMicroUsd: gone ? costOf({ inputTokens: input, outputTokens: 0 }, opened.route) : 0, reason: gone ? "client_disconnect" : "upstream_error", status: opened.error.status, errorCode: opened.error.code, route: opened.route, inputTokens: input, outputTokens: 0, usageEstimated: gone, ttftMs: null });
    return errorResponse(opened.error, style);
  }
  const { it, first: firstChunk, plan } = opened.value;
  const route = opened.route!;
  remember(route);
  const meter = new StreamMeter(req);
  const encoder = protocol.createStreamEncoder({ model: req.model, request: req });
  let ttftMs: number | null = null;
  let failure: ApiError | null = null;
  let settling: Promise<unknown> | null = null;

  const finish = (why?: SettlementReason) => {
    settling ??= (async () => {
      const done = meter.final !== null;
      const reason: SettlementReason = why ?? (done ? "completed" : failure ? "upstream_error" : "client_disconnect");
      const usage = meter.usage();
      // An upstream that died before producing anything costs the client nothing.
      const free = reason === "upstream_error" && !meter.sawOutput;
      await settle({
        costMicroUsd: free ? 0 : costOf(usage, route),
        reason,
        status: failure ? failure.status : 200,
        errorCode: failure?.code,
        route,
        ...(free ? { inputTokens: 0, outputTokens: 0, usageEstimated: false } : usageFields(meter.final, usage)),
        ttftMs,
      });
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
        ev.costMicroUsd = cost = costOf(usage, route);
      }
    }
    if (!plan.call.passthrough) return chunk.events.flatMap((ev) => encoder.encode(ev));
    if (chunk.doneMarker) return ["data: [DONE]\n\n"];
    const json = chunk.json;
    if (!json) return [];
    if (plan.call.hideUsageChunk) {
      if (Array.isArray(json.choices) && json.choices.length === 0 && json.usage) return [];
      if (json.usage === null) delete json.usage;
    }
    if (cost !== undefined) plan.adapter.injectCost?.(json, cost);
    return [chunk.eventName ? sseEvent(chunk.eventName, json) : sseData(json)];
  };

  async function* events(): AsyncGenerator<string> {
    try {
      let chunk: UpstreamChunk = firstChunk;
      for (;;) {
        for (const s of render(chunk)) {
          ttftMs ??= elapsed();
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
      await finish();
    }
  }

  const headers: Record<string, string> = { ...SSE_HEADERS, ...servedHeaders(route) };
  if (plan.dropped.length) headers[DROPPED_PARAMS_HEADER] = plan.dropped.join(", ");
  return { status: 200, headers, body: events() };
}

/**
 * The log row's token fields: every class of the billed usage, and a note naming what the
 * upstream reported wrong (`reported`, as decoded) and what we counted ourselves.
 */
function usageFields(reported: Usage | null, billed: Usage) {
  const notes: string[] = [];
  if (reported?.invalidFields?.length) notes.push(`upstream usage not whole numbers: ${reported.invalidFields.join(", ")}`);
  if (billed.estimated) notes.push(reported?.unreported?.length ? `estimated: ${reported.unreported.join(", ")}` : "estimated: no upstream usage");
  return {
    inputTokens: billed.inputTokens,
    outputTokens: billed.outputTokens,
    cacheReadTokens: billed.cacheReadTokens ?? 0,
    cacheWrite5mTokens: billed.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: billed.cacheWrite1hTokens ?? 0,
    reasoningTokens: billed.reasoningTokens ?? 0,
    usageEstimated: !!billed.estimated,
    usageNote: notes.length ? notes.join("; ") : null,
  };
}

function modelOf(body: unknown, opts?: ParseOptions): string | null {
  if (opts?.pathModel) return opts.pathModel;
  const m = (body as { model?: unknown } | null)?.model;
  return typeof m === "string" ? m.slice(0, 200) : null;
}

/** A 402 that helps: what the request could cost, what is available, and the cap that would fit. */
function whatWouldFit(err: ApiError, protocol: InboundProtocol, promptBound: number, maxTokens: number, hold: number, available: number, price: ModelPrice): ApiError {
  const field = protocol.fieldName("max_tokens");
  // Headroom for the cap field the client adds: a passthrough's bound counts every body byte.
  const fits = Math.min(affordableMaxTokens(promptBound + 64, available, price), maxTokens - 1);
  const advice = fits >= 1 ? `Set ${field} to at most ${fits}, or add funds under Billing.` : "Add funds under Billing.";
  return {
    ...err,
    message: `Insufficient balance: this request could cost up to $${formatUsd(hold)} (a prompt of up to ${promptBound} tokens and ${field} ${maxTokens}), and $${formatUsd(available)} is available. ${advice}`,
  };
}
