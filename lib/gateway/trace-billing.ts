/**
 * Traces of a metered call, put at its money edges — a decorator of the billing port, so every
 * capability (text on every protocol, embeddings, images; videos through the same two helpers)
 * gets the same spans: a child span for the hold and one for the settlement, and the request
 * span described from the settlement's log fields, the one place that knows the model, the
 * serving upstream, the usage, the charge, the status and the time to the first chunk.
 * Tracing off (no request span): the port is returned as it is.
 */
import type { Span } from "@opentelemetry/api";
import type { ModelKind } from "../../db/schema";
import type { BillingPort, RequestLogFields, Settled } from "../billing/port";
import { childSpan, describeGeneration } from "../tracing";

/** `gen_ai.operation.name` per capability (the convention names chat and embeddings; the rest are ours). */
const OPERATION: Record<ModelKind, string> = { text: "chat", embedding: "embeddings", image: "image_generation", video: "video_generation", speech: "speech", transcription: "transcription" };

/** Upstream protocol → `gen_ai.provider.name` (the convention's well-known values). */
const PROVIDER: Record<string, string> = { openai: "openai", anthropic: "anthropic", gemini: "gcp.gemini", demo: "demo" };

export function tracedPort(port: BillingPort, span: Span | undefined, kind: ModelKind): BillingPort {
  if (!span) return port;
  return {
    reserve: (amount, opts) => holdSpan(amount, () => port.reserve(amount, opts), (r) => (r.ok ? "held" : r.reason)),
    settle: (hold, s, opts) => settleSpan(span, kind, s.log, s.costMicroUsd, () => port.settle(hold, s, opts), opts?.early),
  };
}

/** The `gateway.hold` child span around a reservation, with its outcome ("held" or the refusal). */
export function holdSpan<T>(amountMicroUsd: number, reserve: () => Promise<T>, outcome: (r: T) => string): Promise<T> {
  return childSpan("gateway.hold", { "gateway.hold.micro_usd": amountMicroUsd }, reserve, (child, r) => child.setAttribute("gateway.hold.outcome", outcome(r)));
}

/** Describes the request span from the log fields, then the `gateway.settle` child span around `settle`. */
export function settleSpan<T extends Pick<Settled, "chargedMicroUsd">>(
  span: Span | undefined,
  kind: ModelKind,
  log: RequestLogFields,
  costMicroUsd: number,
  settle: () => Promise<T>,
  early = false,
): Promise<T> {
  if (!span) return settle();
  describe(span, kind, log);
  return childSpan(
    "gateway.settle",
    { "gateway.settlement.reason": log.settlement, "gateway.cost.micro_usd": costMicroUsd, "gateway.settle.early": early },
    settle,
    (child, r) => {
      child.setAttribute("gateway.charged.micro_usd", r.chargedMicroUsd);
      span.setAttribute("gateway.cost.micro_usd", r.chargedMicroUsd);
      span.setAttribute("gateway.cost.usd", r.chargedMicroUsd / 1_000_000);
    },
  );
}

/** Only what the log knows: a count the capability does not report stays off the span. */
function describe(span: Span, kind: ModelKind, s: RequestLogFields): void {
  const defined = (entries: Record<string, string | number | boolean | null | undefined>) =>
    Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined && v !== null)) as Record<string, string | number | boolean>;
  const cacheWrite = s.cacheWrite5mTokens === undefined && s.cacheWrite1hTokens === undefined ? undefined : (s.cacheWrite5mTokens ?? 0) + (s.cacheWrite1hTokens ?? 0);
  describeGeneration(
    span,
    OPERATION[kind],
    s.model,
    defined({
      "gen_ai.request.model": s.model,
      "gen_ai.provider.name": s.upstreamProtocol ? (PROVIDER[s.upstreamProtocol] ?? s.upstreamProtocol) : undefined,
      "gen_ai.response.model": s.upstreamId ? (s.upstreamModel ?? s.servedModel ?? s.model) : undefined,
      "gateway.upstream.id": s.upstreamId,
      "gateway.served_model": s.servedModel,
      "gen_ai.request.stream": kind === "text" ? (s.stream ?? false) : undefined,
      "gen_ai.usage.input_tokens": s.inputTokens,
      "gen_ai.usage.output_tokens": s.outputTokens,
      "gen_ai.usage.cache_read.input_tokens": s.cacheReadTokens,
      "gen_ai.usage.cache_creation.input_tokens": cacheWrite,
      "gateway.usage.cache_write_5m.input_tokens": s.cacheWrite5mTokens,
      "gateway.usage.cache_write_1h.input_tokens": s.cacheWrite1hTokens,
      "gen_ai.usage.reasoning.output_tokens": s.reasoningTokens,
      "gateway.usage.estimated": s.settlement === "completed_estimated" || undefined,
      "gateway.inbound_protocol": s.inboundProtocol,
      "gateway.settlement.reason": s.settlement,
      "gateway.status": s.status,
      "gen_ai.response.time_to_first_chunk": s.ttftMs != null ? s.ttftMs / 1000 : undefined,
      "error.type": s.errorCode,
    }),
  );
}
