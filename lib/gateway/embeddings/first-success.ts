/**
 * Tries a model's routes in failover order. Only a retryable failure (429, 5xx, timeout,
 * connection error) moves on to the next route; anything else is the answer.
 */
import type { UpstreamOutcome } from "../upstreams/embed-image-types";

export async function firstSuccess<R extends { upstream: { id: string } }, T>(
  routes: R[],
  call: (route: R) => Promise<UpstreamOutcome<T>>,
  signal?: AbortSignal,
): Promise<{ route: R; outcome: UpstreamOutcome<T> }> {
  let last: { route: R; outcome: UpstreamOutcome<T> } | undefined;
  for (const route of routes) {
    const outcome = await call(route);
    last = { route, outcome };
    if (outcome.ok || !outcome.retryable || signal?.aborted) break;
  }
  return last!;
}
