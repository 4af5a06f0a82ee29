/**
 * Retries and failover before the first byte reaches the client (the spec: only 429 and 5xx,
 * timeouts and resets are retried, with exponential backoff and full jitter). Routes are tried
 * in the catalog's order; a non-retryable answer (the request's own 4xx) ends the search.
 */
import type { Outcome, TextRoute, UpstreamFailure } from "./text-types";

export interface RetryPolicy {
  /** Extra attempts on the same route after the first. */
  retriesPerRoute: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retriesPerRoute: 2, baseDelayMs: 250, maxDelayMs: 4000 };

/** Full jitter (AWS architecture blog): uniform in [0, min(max, base·2^attempt)], at least Retry-After. */
export function backoffMs(attempt: number, policy: RetryPolicy, retryAfterMs?: number, random = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = Math.floor(random() * cap);
  return retryAfterMs !== undefined ? Math.min(Math.max(jittered, retryAfterMs), policy.maxDelayMs) : jittered;
}

export type FailoverResult<T> = ({ ok: true; value: T } | UpstreamFailure) & { route: TextRoute | null; attempts: number };

export async function withFailover<T>(
  routes: TextRoute[],
  attempt: (route: TextRoute) => Promise<Outcome<T>>,
  signal: AbortSignal,
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<FailoverResult<T>> {
  let last: UpstreamFailure | null = null;
  let lastRoute: TextRoute | null = null;
  let attempts = 0;
  for (const route of routes) {
    for (let i = 0; i <= policy.retriesPerRoute; i++) {
      if (signal.aborted) return { ...(last ?? gone()), route: lastRoute, attempts };
      attempts++;
      const r = await attempt(route);
      lastRoute = route;
      if (r.ok) return { ...r, route, attempts };
      last = r;
      if (!r.retryable) {
        if (r.failover) break;
        return { ...r, route, attempts };
      }
      if (i < policy.retriesPerRoute) await sleep(backoffMs(i, policy, r.retryAfterMs), signal);
    }
  }
  return { ...(last ?? gone()), route: lastRoute, attempts };
}

function gone(): UpstreamFailure {
  return { ok: false, retryable: false, error: { status: 502, type: "upstream_error", code: "upstream_error", message: "No upstream could serve this model." } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
