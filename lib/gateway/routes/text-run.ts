/**
 * One admitted text request: its plans, its hold and the routing state, and the few rules the
 * non-streamed and the streamed paths share (what an answer costs, how it is settled and
 * logged, which headers every served answer carries).
 */
import type { Hold, RequestLogFields } from "../../billing/port";
import { textCostMicro, textPriceSnapshot } from "../../billing/text-cost";
import type { CanonicalRequest, Usage } from "../canonical";
import type { TrackedRoute } from "../health/trace";
import type { ModelRoute } from "../model-route";
import type { Admitted } from "../pipeline";
import { estimatePromptTokens } from "../tokens";
import { failoverOptions, TEXT_RETRY, type FailoverOptions } from "../upstreams/failover";
import type { ApiError } from "../errors";
import { GUARDRAILS_HEADER, type GuardSession } from "../guardrails/session";
import { CACHE_HEADER, type CacheTicket } from "../response-cache/cache";
import { rememberAffinity } from "./text-affinity";
import { ContentCapture } from "./text-content-log";
import type { Plan } from "./text-plan";
import type { SettlementReason, TextCall, TextDeps } from "./text-types";

/** Names every hint the serving route dropped (docs/conversion-policy.md). */
export const DROPPED_PARAMS_HEADER = "x-gateway-dropped-params";
/** Names what the upstream has no switch for and the gateway enforces on the answer (docs/conversion-policy.md). */
export const ENFORCED_PARAMS_HEADER = "x-gateway-enforced-params";
/** The model that served (an alias's target, whose price was charged). */
export const SERVED_MODEL_HEADER = "x-gateway-model";
export const DEFAULT_TEXT_TIMEOUT_MS = 120_000;

export interface TextRunInit {
  tc: TextCall;
  deps: TextDeps;
  req: CanonicalRequest;
  plans: Map<ModelRoute, Plan>;
  usable: ModelRoute[];
  /** The hold's amount: a true upper bound of the charge. */
  holdMicroUsd: number;
  admitted: Admitted<Hold>;
  routePlan: TrackedRoute<ModelRoute>;
  /** null with a single entry; else how the first entry was chosen. */
  ordering: "order" | null;
  /** The entry that holds this key's prompt prefix (sticky), if any. */
  prefer: ModelRoute | null;
  /** The prompt-cache affinity key, when the model has several entries. */
  affinity: string | null;
  /** Fields of every log row of this request (inbound protocol, stream). */
  base: { inboundProtocol: string; stream: boolean };
  /** The request's guardrails (null: none apply). */
  guard: GuardSession | null;
  /** The response cache's ticket (null: not asked for). */
  cache: CacheTicket | null;
}

/** What one settlement of the run says; the run adds the rest of the log row. */
export interface RunSettlement {
  /** The charge (already clamped to the hold). */
  costMicroUsd: number;
  reason: SettlementReason;
  status: number;
  errorCode?: string;
  /** The entry that served (or failed last); null when none was reached. */
  route: ModelRoute | null;
  /** All prompt tokens and all output tokens; the classes below are parts of them (canonical Usage). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  imageOutputTokens?: number;
  usageEstimated: boolean;
  /** What was wrong with the upstream's usage (no content, field names only). */
  usageNote?: string | null;
  ttftMs: number | null;
}

export class TextRun {
  readonly tc: TextCall;
  readonly req: CanonicalRequest;
  readonly plans: Map<ModelRoute, Plan>;
  readonly usable: ModelRoute[];
  readonly retry: FailoverOptions<ModelRoute>;
  readonly guard: GuardSession | null;
  readonly cache: CacheTicket | null;
  /** The content log being gathered; null unless the organisation logs prompts and answers. */
  readonly capture: ContentCapture | null;
  /** The configured first entry: its price is the hold's base (the charge is the serving entry's). */
  private readonly first: ModelRoute;

  constructor(private readonly i: TextRunInit) {
    this.tc = i.tc;
    this.req = i.req;
    this.plans = i.plans;
    this.usable = i.usable;
    this.first = i.usable[0]!;
    this.guard = i.guard;
    this.cache = i.cache;
    this.retry = failoverOptions(i.deps.retry ?? TEXT_RETRY, i.routePlan.hooks, i.tc.signal);
    this.capture = i.deps.contentLog ? new ContentCapture(i.deps.contentLog, i.req) : null;
  }

  plan(route: ModelRoute): Plan {
    return this.plans.get(route)!;
  }

  /** The entry's whole answer: its upstream call, or what a vendor batch already answered (decision 0070). */
  complete(route: ModelRoute) {
    const p = this.plan(route);
    return this.i.deps.answered ? this.i.deps.answered(route, p.call, p.adapter) : p.adapter.complete(p.call, { signal: this.tc.signal, timeoutMs: this.timeoutOf(route) });
  }

  elapsed(): number {
    return Math.round(performance.now() - this.tc.startedAt);
  }

  timeoutOf(route: ModelRoute): number {
    return route.upstream.timeoutMs ?? this.i.deps.defaultTimeoutMs ?? DEFAULT_TEXT_TIMEOUT_MS;
  }

  /** The charge is the serving entry's price (an alias's targets may differ), never above the hold. */
  costOf(u: Usage, served: ModelRoute | null | undefined): number {
    return Math.min(this.i.holdMicroUsd, textCostMicro(u, (served ?? this.first).price));
  }

  /** The serving entry keeps this key's prompt prefix (prompt-cache affinity). */
  remember(served: ModelRoute): void {
    if (this.i.affinity) rememberAffinity(this.i.affinity, served.rowId, this.req);
  }

  /**
   * Charges, releases the rest of the hold and the token reservation, and writes the one log row
   * through the billing port. The row is written out field by field, not spread: spreading two
   * objects and adding ten more fields made a dictionary-mode object of several KB on every
   * request, and it lives on in the settlement queue past a young-generation collection (the
   * bench's scavenge survivors were half that object).
   */
  settle(s: RunSettlement, opts?: { early?: boolean }) {
    this.i.admitted.release(s.inputTokens + s.outputTokens);
    const route = s.route;
    // Every column named (a new one in RequestLogFields is added here, optional or not).
    const log: { [K in keyof Required<RequestLogFields>]: RequestLogFields[K] } = {
      model: this.req.model,
      upstreamId: route?.upstream.id ?? null,
      upstreamProtocol: route?.upstream.protocol ?? null,
      upstreamModel: route?.upstreamModel ?? null,
      inboundProtocol: this.i.base.inboundProtocol,
      status: s.status,
      errorCode: s.errorCode ?? null,
      stream: this.i.base.stream,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      cacheReadTokens: s.cacheReadTokens,
      cacheWrite5mTokens: s.cacheWrite5mTokens,
      cacheWrite1hTokens: s.cacheWrite1hTokens,
      reasoningTokens: s.reasoningTokens,
      imageOutputTokens: s.imageOutputTokens,
      usageNote: s.usageNote,
      routing: this.routingOf(route),
      settlement: s.usageEstimated && s.reason === "completed" ? "completed_estimated" : s.reason,
      priceSnapshot: textPriceSnapshot((route ?? this.first).price),
      latencyMs: this.elapsed(),
      ttftMs: s.ttftMs,
      replayedItems: null,
      droppedParams: (route && this.plans.get(route)?.dropped.join(", ")) || null,
      servedModel: route && route.modelId !== this.req.model ? route.modelId : null,
      routeTrace: this.i.routePlan.trace(),
      guardrails: this.guard ? this.guard.label : null,
      savedMicroUsd: null,
      audioInputTokens: undefined,
      audioOutputTokens: undefined,
      audioMs: undefined,
      inputCharacters: undefined,
    };
    this.capture?.settled(this.i.base.stream, s.reason === "completed" ? undefined : (s.errorCode ?? s.reason));
    return this.i.deps.billing.settle(this.i.admitted.hold, { costMicroUsd: s.costMicroUsd, log }, opts);
  }

  /** No answer reached the client: a call the client cut at the upstream costs its prompt; anything else costs nothing. */
  settleFailure(error: ApiError, route: ModelRoute | null | undefined): Promise<unknown> {
    const gone = this.tc.signal.aborted;
    // The client left while a call was at the upstream (499: the call was cut): the upstream may
    // have taken the prompt, which is charged as estimated. It left while the gateway waited to
    // retry a refusal (the error is that refusal): no upstream served anything, nothing is charged.
    const cut = gone && error.status === 499;
    const input = cut ? estimatePromptTokens(this.req) : 0;
    const reason: SettlementReason = gone ? "client_disconnect" : "upstream_error";
    return this.settle({ costMicroUsd: cut ? this.costOf({ inputTokens: input, outputTokens: 0 }, route) : 0, reason, status: error.status, errorCode: error.code, route: route ?? null, inputTokens: input, outputTokens: 0, usageEstimated: cut, ttftMs: null });
  }

  /** Headers of every answer that reached an upstream: the serving model, dropped hints, the token budget. */
  servedHeaders(served: ModelRoute): Record<string, string> {
    const headers: Record<string, string> = { [SERVED_MODEL_HEADER]: served.modelId, ...this.i.admitted.headers };
    const dropped = this.plan(served).dropped;
    if (dropped.length) headers[DROPPED_PARAMS_HEADER] = dropped.join(", ");
    const enforced = this.plan(served).enforced;
    if (enforced.length) headers[ENFORCED_PARAMS_HEADER] = enforced.join(", ");
    if (this.guard) headers[GUARDRAILS_HEADER] = this.guard.policy;
    if (this.cache) headers[CACHE_HEADER] = this.cache.state;
    return headers;
  }

  /** The log row's `routing`: how the serving entry was chosen (null with a single entry). */
  private routingOf(served: ModelRoute | null | undefined): string | null {
    if (this.i.ordering === null) return null;
    if (served && served !== this.i.routePlan.first()) return "failover";
    return this.i.prefer && served === this.i.prefer ? "sticky" : "order";
  }
}

/**
 * The log row's token fields: every class of the billed usage, and a note naming what the
 * upstream reported wrong (`reported`, as decoded), what we counted ourselves, and what the
 * upstream says it charged.
 */
export function usageFields(reported: Usage | null, billed: Usage) {
  const notes: string[] = [];
  if (reported?.invalidFields?.length) notes.push(`upstream usage not whole numbers: ${reported.invalidFields.join(", ")}`);
  if (billed.estimated) notes.push(reported?.unreported?.length ? `estimated: ${reported.unreported.join(", ")}` : "estimated: no upstream usage");
  // The vendor's own charge (xAI, OpenRouter), beside ours: an audit sees a price gone stale.
  if (reported?.reportedCostMicroUsd !== undefined) notes.push(`upstream charged ${reported.reportedCostMicroUsd} µUSD`);
  return {
    inputTokens: billed.inputTokens,
    outputTokens: billed.outputTokens,
    cacheReadTokens: billed.cacheReadTokens ?? 0,
    cacheWrite5mTokens: billed.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: billed.cacheWrite1hTokens ?? 0,
    reasoningTokens: billed.reasoningTokens ?? 0,
    imageOutputTokens: billed.imageOutputTokens ?? 0,
    usageEstimated: !!billed.estimated,
    usageNote: notes.length ? notes.join("; ") : null,
  };
}
