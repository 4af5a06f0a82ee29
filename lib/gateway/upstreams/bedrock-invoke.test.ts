import { describe, expect, it } from "vitest";
import { configSchema } from "../../config/schema";
import type { CanonicalRequest } from "../canonical";
import type { ModelRoute, UpstreamInfo } from "../model-route";
import { bedrockConverse, guardrailConfig } from "./bedrock-converse";
import { embedFamily } from "./bedrock-embed";
import { bedrockInvokeClaude, bedrockTextAdapter } from "./bedrock-invoke";

const upstream = (settings: UpstreamInfo["settings"] = {}): UpstreamInfo => ({ id: "br", protocol: "bedrock", baseUrl: "", apiKey: null, timeoutMs: null, settings });
const route = (u: UpstreamInfo, upstreamModel: string): ModelRoute => ({
  rowId: "r",
  modelId: "claude",
  kind: "text",
  family: null,
  ownedBy: "t",
  upstreamModel,
  price: { inputPerMTok: 1, outputPerMTok: 1 },
  defaultMaxTokens: null,
  strict: false,
  upstream: u,
});

describe("which Bedrock API a text model goes through", () => {
  const invoke = upstream({ region: "us-east-1", claudeApi: "invoke" });
  it.each([
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", bedrockInvokeClaude],
    ["anthropic.claude-3-5-haiku-20241022-v1:0", bedrockInvokeClaude],
    ["arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-opus-4-1-20250805-v1:0", bedrockInvokeClaude],
    ["arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6", bedrockInvokeClaude],
    ["meta.llama3-3-70b-instruct-v1:0", bedrockConverse],
    ["amazon.nova-pro-v1:0", bedrockConverse],
  ])("claudeApi invoke: %s", (model, adapter) => {
    expect(bedrockTextAdapter(route(invoke, model))).toBe(adapter);
  });
  it("Converse by default, and whenever a guardrail is set", () => {
    expect(bedrockTextAdapter(route(upstream({ region: "us-east-1" }), "us.anthropic.claude-sonnet-4-5-20250929-v1:0"))).toBe(bedrockConverse);
    const guarded = upstream({ region: "us-east-1", claudeApi: "invoke", guardrailId: "abc123", guardrailVersion: "2" });
    expect(bedrockTextAdapter(route(guarded, "us.anthropic.claude-sonnet-4-5-20250929-v1:0"))).toBe(bedrockConverse);
    expect(guardrailConfig(route(guarded, "x"))).toEqual({ guardrailIdentifier: "abc123", guardrailVersion: "2" });
  });
});

describe("InvokeModel's Anthropic body", () => {
  it("a Messages passthrough: no model or stream, Bedrock's anthropic_version, the betas in the body, no anthropic-* headers", () => {
    const raw = { model: "claude", max_tokens: 10, stream: true, messages: [{ role: "user", content: "Hi" }] };
    const req = { model: "claude", stream: true } as unknown as CanonicalRequest;
    const p = bedrockInvokeClaude.prepare(route(upstream({ claudeApi: "invoke" }), "us.anthropic.claude-sonnet-4-5-20250929-v1:0"), req, raw, {
      "anthropic-beta": "interleaved-thinking-2025-05-14, context-1m-2025-08-07",
      "anthropic-version": "2023-06-01",
    });
    if (!p.ok) throw new Error(p.error.message);
    expect(p.value.body).toEqual({ max_tokens: 10, messages: [{ role: "user", content: "Hi" }], anthropic_version: "bedrock-2023-05-31", anthropic_beta: ["interleaved-thinking-2025-05-14", "context-1m-2025-08-07"] });
    expect(p.value.headers).toBeUndefined();
    expect(raw).toHaveProperty("model"); // the client's JSON is not changed in place
  });
});

describe("Bedrock embedding families", () => {
  it.each([
    ["amazon.titan-embed-text-v2:0", "titan-v2"],
    ["amazon.titan-embed-text-v1", "titan-v1"],
    ["cohere.embed-english-v3", "cohere-v3"],
    ["cohere.embed-multilingual-v3", "cohere-v3"],
    ["cohere.embed-v4:0", "cohere-v4"],
    ["amazon.titan-embed-image-v1", null],
  ])("%s → %s", (id, family) => expect(embedFamily(id)).toBe(family));
});

describe("config: the new cloud settings", () => {
  const base = (u: Record<string, unknown>) => configSchema.safeParse({ upstreams: [u], models: [] });
  it("a guardrail needs its id and version together", () => {
    expect(base({ id: "b", protocol: "bedrock", region: "us-east-1", guardrailId: "abc123" }).success).toBe(false);
    expect(base({ id: "b", protocol: "bedrock", region: "us-east-1", guardrailId: "abc123", guardrailVersion: "DRAFT", guardrailTrace: "enabled", claudeApi: "invoke" }).success).toBe(true);
    expect(base({ id: "o", protocol: "openai", baseUrl: "https://x.test/v1", claudeApi: "invoke" }).success).toBe(false);
  });
  it("Azure with a client id alone (a user-assigned managed identity) or nothing (the system-assigned one); Vertex without a key file", () => {
    expect(base({ id: "a", protocol: "azure-openai", baseUrl: "https://r.openai.azure.com", clientId: "11111111-2222-3333-4444-555555555555" }).success).toBe(true);
    expect(base({ id: "a", protocol: "azure-openai", baseUrl: "https://r.openai.azure.com" }).success).toBe(true);
    expect(base({ id: "a", protocol: "azure-openai", baseUrl: "https://r.openai.azure.com", clientSecret: "s" }).success).toBe(false);
    expect(base({ id: "v", protocol: "vertex", project: "acme-genai-prod", region: "us-central1" }).success).toBe(true);
  });
});
