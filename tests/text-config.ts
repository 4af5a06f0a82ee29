import { ANTHROPIC_FAKE_KEY } from "./fakes/anthropic-upstream";
import { GEMINI_FAKE_KEY } from "./fakes/gemini-upstream";
import { OPENAI_FAKE_KEY } from "./fakes/openai-upstream";

/** Gateway config for the text integration tests: one model per fake upstream, plus failover pairs. */
export const TEXT_PRICE_USD = { inputPerMTok: 1, outputPerMTok: 2 }; // 1 and 2 micro-USD per token

export interface TextFakeUrls {
  openai: string;
  anthropic: string;
  gemini: string;
  openaiKey: string;
  anthropicKey: string;
  geminiKey: string;
}

/** The URLs and keys of the three text fakes, as textGatewayConfig takes them. */
export function textFakeUrls(fakes: { openai: { baseUrl: string }; anthropic: { baseUrl: string }; gemini: { baseUrl: string } }): TextFakeUrls {
  return {
    openai: fakes.openai.baseUrl,
    anthropic: fakes.anthropic.baseUrl,
    gemini: fakes.gemini.baseUrl,
    openaiKey: OPENAI_FAKE_KEY,
    anthropicKey: ANTHROPIC_FAKE_KEY,
    geminiKey: GEMINI_FAKE_KEY,
  };
}

export function textGatewayConfig(u: TextFakeUrls, opts: { timeoutMs?: number; defaultMaxTokens?: number; backup?: TextFakeUrls } = {}) {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const upstreams: Record<string, unknown>[] = [
    { id: "oa", protocol: "openai", baseUrl: u.openai, apiKey: u.openaiKey, timeoutMs },
    { id: "an", protocol: "anthropic", baseUrl: u.anthropic, apiKey: u.anthropicKey, timeoutMs },
    { id: "ge", protocol: "gemini", baseUrl: u.gemini, apiKey: u.geminiKey, timeoutMs },
    { id: "demo", protocol: "demo" },
  ];
  const model = (id: string, upstream: string, upstreamModel: string) => ({
    id,
    kind: "text",
    upstream,
    upstreamModel,
    price: TEXT_PRICE_USD,
    defaultMaxTokens: opts.defaultMaxTokens ?? 100,
  });
  const models = [
    model("chat-openai", "oa", "gpt-fake"),
    model("chat-anthropic", "an", "claude-fake"),
    model("chat-gemini", "ge", "gemini-fake"),
    model("demo-chat", "demo", "demo-chat"),
    // docs/conversion-policy.md: hints the upstream lacks are refused, not dropped.
    { ...model("chat-strict", "oa", "gpt-fake"), strict: true },
  ];
  if (opts.backup) {
    upstreams.push({ id: "oa2", protocol: "openai", baseUrl: opts.backup.openai, apiKey: opts.backup.openaiKey, timeoutMs });
    // Failover: the anthropic upstream first, then a second openai upstream.
    models.push(model("chat-failover", "an", "claude-fake"), model("chat-failover", "oa2", "gpt-backup"));
  }
  return { upstreams, models };
}
