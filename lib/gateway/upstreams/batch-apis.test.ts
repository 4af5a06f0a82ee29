import { describe, expect, it } from "vitest";
import type { UpstreamInfo } from "../model-route";
import { batchesNatively } from "./batch-apis";

const up = (protocol: UpstreamInfo["protocol"], baseUrl: string, batches?: "native" | "gateway"): UpstreamInfo => ({ id: "u", protocol, baseUrl, apiKey: "k", timeoutMs: null, settings: batches ? { batches } : {} });

describe("batchesNatively (decision 0070)", () => {
  it("defaults to the vendor's batch API on the vendor's own host only", () => {
    expect(batchesNatively(up("openai", "https://api.openai.com/v1"))).toBe(true);
    expect(batchesNatively(up("anthropic", "https://api.anthropic.com"))).toBe(true);
    expect(batchesNatively(up("gemini", "https://generativelanguage.googleapis.com"))).toBe(true);
    expect(batchesNatively(up("openai", "https://api.groq.com/openai/v1"))).toBe(false);
    expect(batchesNatively(up("anthropic", "https://proxy.example.com"))).toBe(false);
  });

  it("follows the upstream's `batches` setting, and never for protocols without a batch API", () => {
    expect(batchesNatively(up("openai", "http://127.0.0.1:9000/v1", "native"))).toBe(true);
    expect(batchesNatively(up("openai", "https://api.openai.com/v1", "gateway"))).toBe(false);
    expect(batchesNatively(up("openai-responses", "https://api.openai.com/v1", "native"))).toBe(false);
    expect(batchesNatively(up("bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com", "native"))).toBe(false);
  });
});
