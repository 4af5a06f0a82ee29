/**
 * Bedrock embeddings (issue 34) through the official openai SDK: Titan Text Embeddings v2 and
 * Cohere Embed v3/v4 on InvokeModel, signed (the fake recomputes every SigV4 signature), the
 * usage as Bedrock billed it — Titan's `inputTextTokenCount` per text, Cohere's
 * `x-amzn-bedrock-input-token-count` header per batch of at most 96 — and the charge from it.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BEDROCK_KEYS, BEDROCK_REGION, fakeEmbedTokens, fakeVector, startFakeBedrock, type FakeBedrock } from "./fakes/bedrock-upstream";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let fake: FakeBedrock;
let server: TestServer;
let client: OpenAI;
let email: string;

// USD per million input tokens (Titan v2: $0.02; Cohere Embed v3: $0.10).
const TITAN_PRICE = 0.02;
const COHERE_PRICE = 0.1;

beforeAll(async () => {
  fake = await startFakeBedrock();
  server = await startTestServer({
    config: {
      upstreams: [{ id: "br-emb", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, ...BEDROCK_KEYS, timeoutMs: 5000 }],
      models: [
        { id: "titan-v2", kind: "embedding", upstream: "br-emb", upstreamModel: "amazon.titan-embed-text-v2:0", price: { inputPerMTok: TITAN_PRICE } },
        { id: "cohere-v3", kind: "embedding", upstream: "br-emb", upstreamModel: "cohere.embed-english-v3", price: { inputPerMTok: COHERE_PRICE } },
        { id: "cohere-v4", kind: "embedding", upstream: "br-emb", upstreamModel: "cohere.embed-v4:0", price: { inputPerMTok: COHERE_PRICE } },
      ],
    },
  });
  const acct = await createAccount(server, { usd: 5 });
  email = acct.email;
  client = new OpenAI({ apiKey: acct.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i} text`);
const tokensOf = (texts: string[]) => texts.reduce((n, t) => n + fakeEmbedTokens(t), 0);

describe("Bedrock embeddings", () => {
  it("Titan v2: one signed call per text, the vectors in order, dimensions passed, usage from inputTextTokenCount", async () => {
    const input = ["alpha", "beta gamma delta", "epsilon"];
    const before = usesPostgres() ? await balanceUsd(server, email) : 0;
    const res = await client.embeddings.create({ model: "titan-v2", input, dimensions: 256, encoding_format: "float" });
    expect(fake.requests).toHaveLength(3);
    for (const r of fake.requests) {
      expect(r.signatureOk).toBe(true);
      expect(r.path).toBe(`/model/${encodeURIComponent("amazon.titan-embed-text-v2:0")}/invoke`);
      expect(r.body).toMatchObject({ dimensions: 256, normalize: true });
    }
    expect(fake.requests.map((r) => r.body.inputText).sort()).toEqual([...input].sort());
    expect(res.data.map((d) => d.embedding)).toEqual(input.map((t) => fakeVector(t, 256)));
    const tokens = tokensOf(input); // 2 + 4 + 2
    expect(res.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    if (usesPostgres()) expect(Math.round((before - (await balanceUsd(server, email))) * 1e6)).toBe(Math.ceil(tokens * TITAN_PRICE));
  });

  it("Titan v2 refuses a dimension it has no such choice of, naming it, before any call", async () => {
    await expect(client.embeddings.create({ model: "titan-v2", input: "alpha", dimensions: 300 })).rejects.toMatchObject({ status: 400, param: "dimensions" });
    expect(fake.requests).toHaveLength(0);
  });

  it("Cohere v3: batches of 96, usage from Bedrock's token-count header, the SDK's base64 decoded", async () => {
    const input = words(150, "doc");
    const res = await client.embeddings.create({ model: "cohere-v3", input });
    expect(fake.requests.map((r) => r.body.texts.length)).toEqual([96, 54]);
    expect(fake.requests[0]!.body).toMatchObject({ input_type: "search_document", embedding_types: ["float"] });
    expect(fake.requests[0]!.body).not.toHaveProperty("output_dimension");
    expect(res.data).toHaveLength(150);
    expect(res.data[149]!.embedding).toEqual(fakeVector(input[149]!, 1024).map((x) => Math.fround(x)));
    expect(res.usage.prompt_tokens).toBe(tokensOf(input));
  });

  it("Cohere v4 takes output_dimension; v3 refuses dimensions", async () => {
    const res = await client.embeddings.create({ model: "cohere-v4", input: "alpha", dimensions: 512, encoding_format: "float" });
    expect(fake.requests[0]!.body.output_dimension).toBe(512);
    expect(res.data[0]!.embedding).toHaveLength(512);
    await expect(client.embeddings.create({ model: "cohere-v3", input: "alpha", dimensions: 512 })).rejects.toMatchObject({ status: 400, param: "dimensions" });
  });

  it("token-array input is refused for Bedrock's text-only models", async () => {
    await expect(client.embeddings.create({ model: "titan-v2", input: [[1, 2, 3]] })).rejects.toMatchObject({ status: 400, param: "input" });
  });
});
