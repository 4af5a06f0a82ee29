/**
 * Prometheus metrics (GET /metrics with METRICS_TOKEN). Labels are bounded: route patterns,
 * public model ids, status codes — never ids or keys.
 */
import { Counter, Histogram, Registry } from "prom-client";
import { processSingleton } from "./process-singleton";

function create() {
  const registry = new Registry();
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
    rateLimitFailOpen: new Counter({ name: "gateway_rate_limit_fail_open_total", help: "Rate-limit checks skipped because the store was unavailable", registers: [registry] }),
  };
}

/** The process-wide registry and instruments. */
export const metrics = processSingleton("gateway.metrics", create);
