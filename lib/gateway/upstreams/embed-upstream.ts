/** Sends an embedding request to one route's upstream, whichever protocol it speaks. */
import type { EmbeddingRequest } from "../embeddings/embedding-request";
import type { EmbeddingResult } from "../embeddings/embedding-result";
import { errors, type Outcome } from "../errors";
import { demoEmbed } from "./demo-embed";
import type { ModelRoute } from "../model-route";
import { geminiEmbed } from "./gemini-embed";
import { openaiEmbed } from "./openai-embed";
import { azureEmbed } from "./azure-openai";

export const DEFAULT_EMBED_TIMEOUT_MS = 60_000;

export async function embedWithUpstream(
  route: ModelRoute,
  req: EmbeddingRequest,
  signal?: AbortSignal,
): Promise<Outcome<EmbeddingResult>> {
  const opts = { signal, timeoutMs: route.upstream.timeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS };
  switch (route.upstream.protocol) {
    case "openai":
      return openaiEmbed(route, req, opts);
    case "azure-openai":
      return azureEmbed(route, req, opts);
    case "gemini":
      return geminiEmbed(route, req, opts);
    case "demo":
      return demoEmbed(req);
    default:
      // A catalog entry pointing an embedding model at a protocol without embeddings: try the next route.
      return { ok: false, error: errors.upstream("This model's upstream does not serve embeddings."), retryable: false, failover: true };
  }
}
