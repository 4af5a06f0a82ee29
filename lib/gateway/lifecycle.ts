/**
 * What a model's lifecycle does to a request (decision 0051). Deprecated: the reply carries
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594, when a shutdown is set) and a `Link` to the
 * successor (`rel="successor-version"`, RFC 5829). Shut down: a 410 before any hold, or, when
 * the operator opted in, the successor's entries (its price), with `x-gateway-model` naming it.
 * Pure: the clock is a parameter.
 */
import { errors, type ApiError } from "./errors";
import type { ModelRoute } from "./model-route";
import type { Result } from "../result";

export interface ModelLifecycle {
  deprecatedAt: Date | null;
  shutdownAt: Date | null;
  successor: string | null;
  serveSuccessorAfterShutdown: boolean;
}

/** The notice headers for `lc` at `now` (none before deprecatedAt). */
export function lifecycleHeaders(lc: ModelLifecycle | undefined, now: Date): Record<string, string> {
  if (!lc?.deprecatedAt || now < lc.deprecatedAt) return {};
  const h: Record<string, string> = { deprecation: `@${Math.floor(lc.deprecatedAt.getTime() / 1000)}` };
  if (lc.shutdownAt) h.sunset = lc.shutdownAt.toUTCString();
  if (lc.successor) h.link = `</v1/models/${encodeURIComponent(lc.successor)}>; rel="successor-version"`;
  return h;
}

export const isShutDown = (lc: ModelLifecycle | undefined, now: Date): boolean => Boolean(lc?.shutdownAt && now >= lc.shutdownAt);

export interface LifecycleLookup {
  lifecycle(modelId: string): ModelLifecycle | undefined;
  routes(modelId: string): ModelRoute[] | undefined;
}

/**
 * The routes that serve a request for `modelId` (a model id, not an alias) and the headers its
 * reply carries (on the 410 too), or the 410. A successor serves one hop only: a shut-down successor is its own 410.
 */
export function applyLifecycle(
  modelId: string,
  routes: ModelRoute[],
  catalog: LifecycleLookup,
  now: Date,
): Result<ModelRoute[], ApiError> & { headers: Record<string, string> } {
  const lc = catalog.lifecycle(modelId);
  const headers = lifecycleHeaders(lc, now);
  if (!lc || !isShutDown(lc, now)) return { ok: true, value: routes, headers };
  const successor = lc.successor;
  const next = successor && lc.serveSuccessorAfterShutdown ? catalog.routes(successor)?.filter((r) => r.kind === routes[0]!.kind) : undefined;
  if (!successor || !next?.length) return { ok: false, error: errors.modelShutDown(modelId, lc.shutdownAt!, successor), headers };
  const own = catalog.lifecycle(successor);
  if (isShutDown(own, now)) return { ok: false, error: errors.modelShutDown(successor, own!.shutdownAt!, own!.successor), headers };
  return { ok: true, value: next, headers: { ...headers, "x-gateway-model": successor } };
}
