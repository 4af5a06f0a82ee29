import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FAKE_GEMINI_KEY, startFakeGeminiEmbed, type FakeGeminiEmbed } from "../../../tests/fakes/gemini-embed-upstream";
import type { EmbeddingRequest } from "../media/embedding-request";
import type { ModelRoute } from "../model-route";
import { GEMINI_BATCH_LIMIT, geminiEmbed } from "./gemini-embed";

let fake: FakeGeminiEmbed;
let route: ModelRoute;
beforeAll(async () => {
  fake = await startFakeGeminiEmbed();
  route = {
    rowId: "mdl_g",
    modelId: "emb-g",
    kind: "embedding",
    family: null,
    ownedBy: "test",
    strict: false,
    priority: 0,
    weight: 1,
    defaultMaxTokens: null,
    upstreamModel: "gemini-embedding-001",
    price: { inputPerMTok: 150_000 },
    upstream: { id: "ge", protocol: "gemini", baseUrl: fake.baseUrl, apiKey: FAKE_GEMINI_KEY, timeoutMs: null },
  };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.behavior = "ok";
});

const req = (texts: string[], over: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  model: "emb-g",
  input: { kind: "text", texts },
  encodingFormat: "float",
  ...over,
});

describe("geminiEmbed", () => {
  it("uses embedContent for one text", async () => {
    const r = await geminiEmbed(route, req(["hello"], { dimensions: 5 }), { timeoutMs: 5000 });
    if (!r.ok) throw new Error(r.error.message);
    expect(fake.requests[0]!.path).toBe("/v1beta/models/gemini-embedding-001:embedContent");
    expect(fake.requests[0]!.headers["x-goog-api-key"]).toBe(FAKE_GEMINI_KEY);
    expect(fake.requests[0]!.body).toEqual({ content: { parts: [{ text: "hello" }] }, outputDimensionality: 5 });
    expect(r.value).toEqual({ vectors: [fake.vectorFor("hello", 5)], promptTokens: null });
  });

  it("uses batchEmbedContents for several, in chunks of the batch limit, keeping order", async () => {
    const texts = Array.from({ length: GEMINI_BATCH_LIMIT + 3 }, (_, i) => "x".repeat(i + 1));
    const r = await geminiEmbed(route, req(texts), { timeoutMs: 5000 });
    if (!r.ok) throw new Error(r.error.message);
    expect(fake.requests.map((q) => q.path)).toEqual([
      "/v1beta/models/gemini-embedding-001:batchEmbedContents",
      "/v1beta/models/gemini-embedding-001:batchEmbedContents",
    ]);
    expect(fake.requests[0]!.body.requests[0]).toEqual({ model: "models/gemini-embedding-001", content: { parts: [{ text: "x" }] } });
    expect(fake.requests[1]!.body.requests).toHaveLength(3);
    expect(r.value.vectors.map((v) => v[0])).toEqual(texts.map((t) => t.length));
  });

  it("refuses token arrays with a 400 naming input, without calling the upstream", async () => {
    const r = await geminiEmbed(route, { model: "emb-g", input: { kind: "tokens", tokens: [[1]] }, encodingFormat: "float" }, { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, retryable: false, error: { status: 400, param: "input" } });
    expect(fake.requests).toHaveLength(0);
  });

  it("maps a 500 to a retryable failure", async () => {
    fake.script.behavior = "fail500";
    expect(await geminiEmbed(route, req(["a", "b"]), { timeoutMs: 5000 })).toMatchObject({ ok: false, retryable: true });
  });
});
