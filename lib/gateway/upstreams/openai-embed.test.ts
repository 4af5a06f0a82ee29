import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FAKE_API_KEY, startFakeOpenAIMedia, type FakeOpenAIMedia } from "../../../tests/fakes/openai-media-upstream";
import type { EmbeddingRequest } from "../media/embedding-request";
import type { ModelRoute } from "../model-route";
import { openaiEmbed } from "./openai-embed";

let fake: FakeOpenAIMedia;
let route: ModelRoute;
beforeAll(async () => {
  fake = await startFakeOpenAIMedia();
  route = {
    rowId: "mdl_1",
    modelId: "emb-a",
    kind: "embedding",
    family: null,
    ownedBy: "test",
    strict: false,
    priority: 0,
    weight: 1,
    defaultMaxTokens: null,
    upstreamModel: "text-embedding-3-small",
    price: { inputPerMTok: 20_000 },
    upstream: { id: "oa", protocol: "openai", baseUrl: fake.baseUrl, apiKey: FAKE_API_KEY, timeoutMs: null },
  };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  Object.assign(fake.script, { embeddings: "ok", omitUsage: false });
});

const req = (over: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  model: "emb-a",
  input: { kind: "text", texts: ["hello", "world wide"] },
  encodingFormat: "float",
  ...over,
});

describe("openaiEmbed", () => {
  it("sends the upstream model, input and format, and puts vectors back in input order", async () => {
    const r = await openaiEmbed(route, req({ dimensions: 4, user: "u1" }), { timeoutMs: 5000 });
    if (!r.ok) throw new Error(r.error.message);
    expect(fake.requests[0]!.body).toEqual({
      model: "text-embedding-3-small",
      input: ["hello", "world wide"],
      encoding_format: "float",
      dimensions: 4,
      user: "u1",
    });
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${FAKE_API_KEY}`);
    expect(Array.from(r.value.vectors[0]!)).toEqual(fake.vectorFor("hello", 0));
    expect(Array.from(r.value.vectors[1]!)).toEqual(fake.vectorFor("world wide", 1));
    expect(r.value.promptTokens).toBe(2 + 3);
  });

  it("decodes base64 answers, and takes floats from an upstream that ignores the format", async () => {
    for (const mode of ["ok", "floats-only"] as const) {
      fake.script.embeddings = mode;
      const r = await openaiEmbed(route, req({ encodingFormat: "base64" }), { timeoutMs: 5000 });
      if (!r.ok) throw new Error(r.error.message);
      expect(Array.from(r.value.vectors[1]!)).toEqual(fake.vectorFor("world wide", 1));
    }
  });

  it("reports missing usage as null so the gateway counts", async () => {
    fake.script.omitUsage = true;
    const r = await openaiEmbed(route, req(), { timeoutMs: 5000 });
    expect(r.ok && r.value.promptTokens).toBeNull();
  });

  it("passes token arrays through", async () => {
    const r = await openaiEmbed(route, req({ input: { kind: "tokens", tokens: [[1, 2, 3]] } }), { timeoutMs: 5000 });
    expect(r.ok).toBe(true);
    expect(fake.requests[0]!.body.input).toEqual([[1, 2, 3]]);
  });

  it("turns a 500 into a retryable 502 and a 400 into the upstream's own status, without the URL", async () => {
    fake.script.embeddings = "fail500";
    const r500 = await openaiEmbed(route, req(), { timeoutMs: 5000 });
    expect(r500).toMatchObject({ ok: false, retryable: true, error: { status: 502, code: "upstream_error" } });
    fake.script.embeddings = "fail400";
    const r400 = await openaiEmbed(route, req(), { timeoutMs: 5000 });
    expect(r400).toMatchObject({ ok: false, retryable: false, error: { status: 400, type: "upstream_error" } });
    if (r400.ok) return;
    expect(r400.error.message).toContain("safety system");
    expect(r400.error.message).not.toContain("127.0.0.1");
  });

  it("times out a hanging upstream with a retryable 504", async () => {
    fake.script.embeddings = "hang";
    const r = await openaiEmbed(route, req(), { timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, retryable: true, error: { status: 504, code: "upstream_timeout" } });
  });

  it("stops when the client goes away, and does not fail over", async () => {
    fake.script.embeddings = "hang";
    const ac = new AbortController();
    const p = openaiEmbed(route, req(), { timeoutMs: 60_000, signal: ac.signal });
    ac.abort();
    expect(await p).toMatchObject({ ok: false, retryable: false });
  });
});
