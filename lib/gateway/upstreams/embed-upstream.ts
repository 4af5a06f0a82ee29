/** Sends an embedding request to one route's upstream, whichever protocol it speaks. */
import type { EmbeddingRequest } from "../media/embedding-request";
import type { EmbeddingResult } from "../media/embedding-result";
import { errors, type Outcome } from "../errors";
import { implementation } from "./registry";
import type { ModelRoute } from "../model-route";

export const DEFAULT_EMBED_TIMEOUT_MS = 60_000;

export async function embedWithUpstream(
  route: ModelRoute,
  req: EmbeddingRequest,
  signal?: AbortSignal,
): Promise<Outcome<EmbeddingResult>> {
  const opts = { signal, timeoutMs: route.upstream.timeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS };
  const embed = implementation(route.upstream.protocol, "embedding");
  // A catalog entry pointing an embedding model at a protocol without embeddings: try the next route.
  if (!embed) return { ok: false, error: errors.upstream("This model's upstream does not serve embeddings."), retryable: false, failover: true };
  return embed(route, req, opts);
}
