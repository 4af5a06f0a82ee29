/**
 * Prometheus metrics (GET /metrics with METRICS_TOKEN). Labels are bounded: route patterns,
 * public model ids, status codes — never ids or keys.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { processSingleton } from "./process-singleton";

/** What the upstream-health gauges read at scrape time (lib/gateway/health). */
interface EntryGaugeSource {
  modelId: string;
  upstreamId: string;
  state: "closed" | "open" | "half_open";
  errorRate: number;
  attempts: number;
}

const CIRCUIT_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

function create() {
  const registry = new Registry();
  let entries: () => EntryGaugeSource[] = () => [];
  const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
  return {
    registry,
    requests: new Counter({ name: "gateway_requests_total", help: "Public API requests", labelNames: ["route", "model", "status"], registers: [registry] }),
    duration: new Histogram({
      name: "gateway_request_duration_seconds",
      help: "Time to the response head (whole body for non-streamed responses)",
      labelNames: ["route", "model", "status"],
      buckets,
      registers: [registry],
    }),
    ttft: new Histogram({ name: "gateway_time_to_first_token_seconds", help: "Time to the first streamed token", labelNames: ["route", "model"], buckets, registers: [registry] }),
    upstreamErrors: new Counter({ name: "gateway_upstream_errors_total", help: "Failed upstream attempts", labelNames: ["upstream", "kind"], registers: [registry] }),
    spend: new Counter({ name: "gateway_spend_micro_usd_total", help: "Money charged, micro-USD", labelNames: ["model"], registers: [registry] }),
    rateLimited: new Counter({ name: "gateway_rate_limited_total", help: "Requests answered 429", registers: [registry] }),
    responseSockets: new Counter({ name: "gateway_responses_websockets_total", help: "Responses API WebSocket connections accepted", registers: [registry] }),
    responseSocketFrames: new Counter({ name: "gateway_responses_websocket_frames_total", help: "response.create frames received over WebSocket", registers: [registry] }),
    guardrailVerdicts: new Counter({ name: "gateway_guardrail_verdicts_total", help: "Guardrail checks by verdict (allow, block, redact)", labelNames: ["guardrail", "verdict"], registers: [registry] }),
    guardrailFailures: new Counter({
      name: "gateway_guardrail_failures_total",
      help: "Guardrail webhooks that timed out or failed, by what the fail policy did (blocked, allowed)",
      labelNames: ["guardrail", "kind", "outcome"],
      registers: [registry],
    }),
    rateLimitFailOpen: new Counter({ name: "gateway_rate_limit_fail_open_total", help: "Rate-limit checks skipped because the store was unavailable", registers: [registry] }),
    upstreamTransitions: new Counter({
      name: "gateway_upstream_circuit_transitions_total",
      help: "Circuit changes of upstream entries made by this instance",
      labelNames: ["model", "upstream", "to"],
      registers: [registry],
    }),
    circuitState: new Gauge({
      name: "gateway_upstream_circuit_state",
      help: "Circuit of each upstream entry: 0 closed, 1 half-open, 2 open",
      labelNames: ["model", "upstream"],
      registers: [registry],
      collect() {
        this.reset();
        for (const e of entries()) this.set({ model: e.modelId, upstream: e.upstreamId }, CIRCUIT_VALUE[e.state]);
      },
    }),
    errorRate: new Gauge({
      name: "gateway_upstream_error_rate",
      help: "Failed share of each upstream entry's attempts in the health window (0-1)",
      labelNames: ["model", "upstream"],
      registers: [registry],
      collect() {
        this.reset();
        for (const e of entries()) this.set({ model: e.modelId, upstream: e.upstreamId }, e.errorRate);
      },
    }),
    windowAttempts: new Gauge({
      name: "gateway_upstream_window_attempts",
      help: "Attempts on each upstream entry in the health window",
      labelNames: ["model", "upstream"],
      registers: [registry],
      collect() {
        this.reset();
        for (const e of entries()) this.set({ model: e.modelId, upstream: e.upstreamId }, e.attempts);
      },
    }),
    /** The health module gives its snapshot once at start. */
    registerUpstreamHealth(source: () => EntryGaugeSource[]) {
      entries = source;
    },
  };
}

/** The process-wide registry and instruments. */
export const metrics = processSingleton("gateway.metrics", create);
