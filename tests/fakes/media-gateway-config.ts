/**
 * The gateway config the media integration tests run with: the fake OpenAI media upstream,
 * the fake Gemini embedding upstream, an unreachable upstream to fail over from, and the
 * built-in demo upstream. Prices in USD, as in the config file.
 */
import { FAKE_GEMINI_KEY } from "./gemini-embed-upstream";
import { FAKE_API_KEY } from "./openai-media-upstream";

/** The spec's documented image model (0.021–0.26 USD), by quality:size, in USD. */
export const IMAGE_PRICES_USD: Record<string, number> = {
  "low:1024x1024": 0.021,
  "low:1536x1024": 0.032,
  "low:1024x1536": 0.031,
  "medium:1024x1024": 0.063,
  "medium:1536x1024": 0.095,
  "medium:1024x1536": 0.094,
  "high:1024x1024": 0.17,
  "high:1536x1024": 0.26,
  "high:1024x1536": 0.25,
};

export function mediaGatewayConfig(openaiBaseUrl: string, geminiBaseUrl: string) {
  return {
    upstreams: [
      // Nothing listens on port 9: connection refused, a retryable failure.
      { id: "oa-down", protocol: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: FAKE_API_KEY },
      { id: "oa", protocol: "openai", baseUrl: openaiBaseUrl, apiKey: FAKE_API_KEY },
      { id: "ge", protocol: "gemini", baseUrl: geminiBaseUrl, apiKey: FAKE_GEMINI_KEY },
      { id: "demo", protocol: "demo" },
    ],
    models: [
      { id: "emb-oa", kind: "embedding", upstream: "oa", upstreamModel: "text-embedding-3-small", price: { inputPerMTok: 0.02 } },
      // Large price so token charges are visible in micro-USD: 1 USD per million tokens.
      { id: "emb-ge", kind: "embedding", upstream: "ge", upstreamModel: "gemini-embedding-001", price: { inputPerMTok: 1 } },
      { id: "emb-failover", kind: "embedding", upstream: "oa-down", upstreamModel: "text-embedding-3-small", price: { inputPerMTok: 1 } },
      { id: "emb-failover", kind: "embedding", upstream: "oa", upstreamModel: "text-embedding-3-small", price: { inputPerMTok: 1 } },
      { id: "demo-embed", kind: "embedding", upstream: "demo", price: { inputPerMTok: 0.02 } },
      { id: "img-oa", kind: "image", upstream: "oa", upstreamModel: "gpt-image-1", price: { perImage: IMAGE_PRICES_USD } },
      { id: "img-flat", kind: "image", upstream: "oa", upstreamModel: "gpt-image-1-mini", price: { perImage: { "*": 0.02 } } },
      { id: "demo-image", kind: "image", upstream: "demo", price: { perImage: IMAGE_PRICES_USD } },
      { id: "demo-image-mini", kind: "image", upstream: "demo", price: { perImage: { "*": 0.01 } } },
      { id: "demo-chat", kind: "text", upstream: "demo", price: { inputPerMTok: 0.5, outputPerMTok: 1.5 }, defaultMaxTokens: 256 },
      // An image alias's first target never answers, and is dearer than the one that serves after it.
      { id: "img-dead", kind: "image", upstream: "oa-down", upstreamModel: "gpt-image-1", price: { perImage: { "*": 0.5 } } },
    ],
    aliases: [
      // An embedding alias names one model (vectors of different models never mix).
      { id: "emb-alias", targets: ["emb-ge"] },
      { id: "img-alias", targets: ["img-dead", "img-flat"] },
    ],
  };
}
