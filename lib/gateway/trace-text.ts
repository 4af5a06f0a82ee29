/**
 * Traces of a text generation, put at its money edges: a child span for the hold and one for
 * the settlement, and the request span described from the settlement — the one place that
 * knows the model, the serving upstream, every token class, the charge, the status, whether
 * it streamed and the time to the first chunk. Tracing off: the billing is returned as it is.
 */
import type { Span } from "@opentelemetry/api";
import { captureContent, childSpan, contentAttribute, describeGeneration } from "../tracing";
import type { TextBilling, TextSettlement } from "./routes/text-types";

/** Upstream protocol → `gen_ai.provider.name` (the convention's well-known values). */
const PROVIDER: Record<string, string> = { openai: "openai", anthropic: "anthropic", gemini: "gcp.gemini", demo: "demo" };

export function tracedBilling(billing: TextBilling, span: Span | undefined, requestBody?: () => string): TextBilling {
  if (!span) return billing;
  if (captureContent() && requestBody) span.setAttribute("gateway.request.body", contentAttribute(requestBody()));
  return {
    reserve: (amount) =>
      childSpan("gateway.hold", { "gateway.hold.micro_usd": amount }, () => billing.reserve(amount), (child, r) =>
        child.setAttribute("gateway.hold.outcome", r.ok ? "held" : r.error.code),
      ),
    settle: (s, opts) => {
      describe(span, s);
      return childSpan(
        "gateway.settle",
        { "gateway.settlement.reason": s.reason, "gateway.cost.micro_usd": s.costMicroUsd, "gateway.settle.early": Boolean(opts?.early) },
        () => billing.settle(s, opts),
        (child, r) => {
          child.setAttribute("gateway.charged.micro_usd", r.chargedMicroUsd);
          span.setAttribute("gateway.cost.micro_usd", r.chargedMicroUsd);
          span.setAttribute("gateway.cost.usd", r.chargedMicroUsd / 1_000_000);
        },
      );
    },
  };
}

function describe(span: Span, s: TextSettlement): void {
  const upstream = s.route?.upstream;
  describeGeneration(span, "chat", s.model, {
    ...(s.model ? { "gen_ai.request.model": s.model } : {}),
    ...(upstream
      ? {
          "gen_ai.provider.name": PROVIDER[upstream.protocol] ?? upstream.protocol,
          "gen_ai.response.model": s.route!.upstreamModel,
          "gateway.upstream.id": upstream.id,
        }
      : {}),
    "gen_ai.request.stream": s.stream,
    "gen_ai.usage.input_tokens": s.inputTokens,
    "gen_ai.usage.output_tokens": s.outputTokens,
    "gen_ai.usage.cache_read.input_tokens": s.cacheReadTokens ?? 0,
    "gen_ai.usage.cache_creation.input_tokens": (s.cacheWrite5mTokens ?? 0) + (s.cacheWrite1hTokens ?? 0),
    "gateway.usage.cache_write_5m.input_tokens": s.cacheWrite5mTokens ?? 0,
    "gateway.usage.cache_write_1h.input_tokens": s.cacheWrite1hTokens ?? 0,
    "gen_ai.usage.reasoning.output_tokens": s.reasoningTokens ?? 0,
    "gateway.usage.estimated": s.usageEstimated,
    "gateway.inbound_protocol": s.inboundProtocol,
    "gateway.settlement.reason": s.reason,
    "gateway.status": s.status,
    ...(s.ttftMs !== null ? { "gen_ai.response.time_to_first_chunk": s.ttftMs / 1000 } : {}),
    ...(s.errorCode ? { "error.type": s.errorCode } : {}),
  });
}
