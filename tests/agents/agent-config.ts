/** Gateway config for the coding-agent matrix: one model per fake upstream kind. */
import type { AgentFake } from "../fakes/agent-upstreams";

export const AGENT_PRICE_USD = { inputPerMTok: 1, outputPerMTok: 2 }; // 1 and 2 micro-USD per token

/**
 * Gateway model id → the upstream model it is served by (the names pick the fakes' per-model
 * rules). Codex gets its own ids: for a model id it does not know it falls back to a tool set
 * without `apply_patch`; a `gpt-5.5…` id gets its full one (custom apply_patch, tool_search…).
 */
export const AGENT_MODELS = {
  anthropic: { id: "agent-anthropic", codexId: "gpt-5.5-via-anthropic", upstream: "an", upstreamModel: "claude-sonnet-4-5" },
  openai: { id: "agent-openai", codexId: "gpt-5.5-via-openai", upstream: "oa", upstreamModel: "gpt-4.1" },
  responses: { id: "agent-responses", codexId: "gpt-5.5-via-responses", upstream: "or", upstreamModel: "gpt-5.5" },
  gemini: { id: "agent-gemini", codexId: "gpt-5.5-via-gemini", upstream: "ge", upstreamModel: "gemini-2.5-flash" },
  gemini3: { id: "agent-gemini-3", codexId: "gpt-5.5-via-gemini-3", upstream: "ge", upstreamModel: "gemini-3-pro-preview" },
} as const;

export type UpstreamKind = keyof typeof AGENT_MODELS;

export function agentGatewayConfig(f: { anthropic: AgentFake; openai: AgentFake; responses: AgentFake; gemini: AgentFake }) {
  return {
    upstreams: [
      { id: "an", protocol: "anthropic", baseUrl: f.anthropic.baseUrl, apiKey: f.anthropic.apiKey, timeoutMs: 20_000 },
      { id: "oa", protocol: "openai", baseUrl: f.openai.baseUrl, apiKey: f.openai.apiKey, timeoutMs: 20_000 },
      { id: "or", protocol: "openai-responses", baseUrl: f.responses.baseUrl, apiKey: f.responses.apiKey, timeoutMs: 20_000 },
      { id: "ge", protocol: "gemini", baseUrl: f.gemini.baseUrl, apiKey: f.gemini.apiKey, timeoutMs: 20_000 },
    ],
    models: Object.values(AGENT_MODELS).flatMap((m) =>
      [m.id, m.codexId].map((id) => ({ id, kind: "text", upstream: m.upstream, upstreamModel: m.upstreamModel, price: AGENT_PRICE_USD, defaultMaxTokens: 8192 })),
    ),
  };
}
