/**
 * What the embedding and image adapters receive and return. `MediaRoute` is the shape the
 * catalog gives for one (public model, upstream) route; it is declared structurally here so the
 * adapters do not depend on the catalog module.
 */
import type { ModelPrice, UpstreamProtocol } from "../../../db/schema";
import type { ApiError } from "../errors";

export interface MediaRoute {
  rowId: string;
  /** The public model id the client asked for. */
  modelId: string;
  kind: string;
  upstreamModel: string;
  /** Integer micro-USD. */
  price: ModelPrice;
  defaultMaxTokens?: number | null;
  upstream: {
    id: string;
    protocol: UpstreamProtocol | string;
    /** openai: includes `/v1`; gemini: the host only. */
    baseUrl: string;
    apiKey: string | null;
    timeoutMs: number | null;
  };
}

/**
 * An upstream call that did not produce a result. `retryable` is what the spec retries (429,
 * 5xx, timeouts, resets): only then may the caller fail over to the next route.
 */
export interface UpstreamFailure {
  ok: false;
  error: ApiError;
  retryable: boolean;
}

export type UpstreamOutcome<T> = { ok: true; value: T } | UpstreamFailure;
