/**
 * POST /v1/embeddings through the official openai SDK against the real server, with the fake
 * OpenAI and Gemini upstreams on loopback and the demo upstream: shapes, the SDK's default
 * base64 decoding, token billing (reserve, settle, nothing on failure), 402, bad inputs.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeGeminiEmbed, type FakeGeminiEmbed } from "./fakes/gemini-embed-upstream";
import { mediaGatewayConfig } from "./fakes/media-gateway-config";
import { startFakeOpenAIMedia, type FakeOpenAIMedia } from "./fakes/openai-media-upstream";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let oa: FakeOpenAIMedia;
let ge: FakeGeminiEmbed;
let client: OpenAI;
let email: string;
let key: string;

beforeAll(async () => {
  oa = await startFakeOpenAIMedia();
  ge = await startFakeGeminiEmbed();
  server = await startTestServer({ config: mediaGatewayConfig(oa.baseUrl, ge.baseUrl) });
  ({ email, key } = await createAccount(server, { usd: 5 }));
  // No retries: a failure must be seen as the gateway answered it.
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.dispose();
  await oa?.close();
  await ge?.close();
});
beforeEach(() => {
  oa.requests.length = 0;
  ge.requests.length = 0;
  Object.assign(oa.script, { embeddings: "ok", omitUsage: false });
  ge.script.behavior = "ok";
});

const micro = (usd: number) => Math.round(usd * 1_000_000);
const cosine = (a: number[], b: number[]) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i]! * b[i]!), (na += a[i]! ** 2), (nb += b[i]! ** 2);
  return dot / Math.sqrt(na * nb);
};

describe("embeddings through the openai SDK", () => {
  it("decodes the SDK's default base64 into the upstream's exact vectors, in input order, with the requested model id", async () => {
    const res = await client.embeddings.create({ model: "emb-oa", input: ["alpha", "beta gamma"] });
    // The SDK asked for base64 on its own; the fake answered base64 (in reverse order).
    expect(oa.requests[0]!.body).toMatchObject({ model: "text-embedding-3-small", input: ["alpha", "beta gamma"], encoding_format: "base64" });
    expect(res.object).toBe("list");
    expect(res.model).toBe("emb-oa");
    expect(res.data.map((d) => [d.object, d.index])).toEqual([["embedding", 0], ["embedding", 1]]);
    expect(res.data[0]!.embedding).toEqual(oa.vectorFor("alpha", 0));
    expect(res.data[1]!.embedding).toEqual(oa.vectorFor("beta gamma", 1));
    expect(res.usage).toEqual({ prompt_tokens: 2 + 3, total_tokens: 5 });
  });

  it("converts a floats-only upstream's answer to the base64 the SDK decodes", async () => {
    oa.script.embeddings = "floats-only";
    const res = await client.embeddings.create({ model: "emb-oa", input: "alpha" });
    expect(res.data[0]!.embedding).toEqual(oa.vectorFor("alpha", 0));
  });

  it("returns floats for encoding_format float and the float32 LE base64 string for base64", async () => {
    const f = await client.embeddings.create({ model: "emb-oa", input: "alpha", encoding_format: "float" });
    expect(f.data[0]!.embedding).toEqual(oa.vectorFor("alpha", 0));
    oa.script.embeddings = "floats-only";
    const b = await client.embeddings.create({ model: "emb-oa", input: "alpha", encoding_format: "base64" });
    const s = b.data[0]!.embedding as unknown as string;
    expect(typeof s).toBe("string");
    const buf = Buffer.from(s, "base64");
    const values = Array.from({ length: buf.length / 4 }, (_, i) => buf.readFloatLE(i * 4));
    expect(values).toEqual(oa.vectorFor("alpha", 0));
  });

  it("passes dimensions and token arrays to an openai upstream", async () => {
    const res = await client.embeddings.create({ model: "emb-oa", input: [[1, 2, 3]], dimensions: 6 });
    expect(oa.requests[0]!.body).toMatchObject({ input: [[1, 2, 3]], dimensions: 6 });
    expect(res.data[0]!.embedding).toHaveLength(6);
  });

  it("serves a gemini upstream (embedContent, batchEmbedContents) as base64 too, counting tokens itself", async () => {
    const before = await balanceUsd(server, email);
    const one = await client.embeddings.create({ model: "emb-ge", input: "hello" });
    expect(ge.requests[0]!.path).toBe("/v1beta/models/gemini-embedding-001:embedContent");
    expect(one.data[0]!.embedding).toEqual(ge.vectorFor("hello"));
    expect(one.model).toBe("emb-ge");
    const many = await client.embeddings.create({ model: "emb-ge", input: ["a", "bb", "ccc"] }).withResponse();
    expect(ge.requests[1]!.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(many.data.data.map((d) => d.embedding[0])).toEqual([1, 2, 3]);
    // Counted tokens: "hello" = 2, then 1 + 1 + 1; at 1 USD per million tokens = 1 micro-USD each.
    expect(one.usage.prompt_tokens).toBe(2);
    expect(many.data.usage.prompt_tokens).toBe(3);
    expect(many.response.headers.get("x-gateway-cost-usd")).toBe("0.000003");
    expect(micro(before - (await balanceUsd(server, email)))).toBe(5);
  });

  it("gives similar texts similar vectors on the demo upstream", async () => {
    const res = await client.embeddings.create({ model: "demo-embed", input: ["The cat sat on the mat", "A cat sat on a mat", "Quarterly revenue grew"] });
    const [a, b, c] = res.data.map((d) => d.embedding);
    expect(res.model).toBe("demo-embed");
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.3);
  });

  it("fails over from an unreachable upstream to the next route, and the row's route_trace says so", async () => {
    const { data: res, response } = await client.embeddings.create({ model: "emb-failover", input: "alpha" }).withResponse();
    expect(res.model).toBe("emb-failover");
    expect(oa.requests).toHaveLength(1);
    if (usesPostgres()) {
      const [row] = await server.query<{ trace: { result: string }[] }>("select route_trace as trace from request_logs where request_id = $1", [response.headers.get("x-request-id")]);
      expect(row!.trace.map((t) => t.result)).toEqual(["failed", "served"]);
    }
  });
});

describe("embedding billing", () => {
  it("an alias is served by its model at that model's price (header and row say which)", async () => {
    const before = await balanceUsd(server, email);
    // emb-ge, 1 USD/MTok.
    const { response } = await client.embeddings.create({ model: "emb-alias", input: ["alpha", "beta gamma"] }).withResponse();
    expect(response.headers.get("x-gateway-model")).toBe("emb-ge");
    const cost = micro(Number(response.headers.get("x-gateway-cost-usd")));
    expect(micro(before - (await balanceUsd(server, email)))).toBe(cost);
    if (usesPostgres()) {
      const [row] = await server.query<{ model: string; served_model: string; input_tokens: number; cost_micro_usd: string }>(
        "select model, served_model, input_tokens, cost_micro_usd from request_logs where request_id = $1",
        [response.headers.get("x-request-id")],
      );
      expect(row).toMatchObject({ model: "emb-alias", served_model: "emb-ge" });
      expect(Number(row!.cost_micro_usd)).toBe(cost);
      expect(cost).toBe(row!.input_tokens * 1);
    }
  });

  it("charges the upstream's tokens at the model's price, with cost and balance headers", async () => {
    const before = await balanceUsd(server, email);
    // 1 USD/MTok via emb-failover: 2 + 3 tokens reported by the fake → 5 micro-USD.
    const { data, response } = await client.embeddings.create({ model: "emb-failover", input: ["alpha", "beta gamma"] }).withResponse();
    expect(data.usage.prompt_tokens).toBe(5);
    expect(response.headers.get("x-gateway-cost-usd")).toBe("0.000005");
    expect(response.headers.get("x-gateway-model")).toBe("emb-failover");
    const after = await balanceUsd(server, email);
    expect(micro(before - after)).toBe(5);
    expect(Number(response.headers.get("x-gateway-balance-usd"))).toBeCloseTo(after, 6);
    if (usesPostgres()) {
      const rid = response.headers.get("x-request-id");
      const ledger = await server.query<{ delta_micro_usd: string; kind: string }>("select delta_micro_usd, kind from ledger_entries where request_id = $1", [rid]);
      expect(ledger).toEqual([{ delta_micro_usd: "-5", kind: "charge" }]);
      const logs = await server.query<{ cost_micro_usd: string; input_tokens: number; status: number; model: string }>(
        "select cost_micro_usd, input_tokens::int as input_tokens, status, model from request_logs where request_id = $1",
        [rid],
      );
      expect(logs).toEqual([{ cost_micro_usd: "5", input_tokens: 5, status: 200, model: "emb-failover" }]);
    }
  });

  it("counts tokens when the upstream reports none", async () => {
    oa.script.omitUsage = true;
    const before = await balanceUsd(server, email);
    const res = await client.embeddings.create({ model: "emb-failover", input: "hello world" });
    expect(res.usage.prompt_tokens).toBe(4); // the gateway's estimate: "hello" 2 + "world" 2
    expect(micro(before - (await balanceUsd(server, email)))).toBe(4);
  });

  it("charges nothing when the upstream fails", async () => {
    oa.script.embeddings = "fail500";
    const before = await balanceUsd(server, email);
    const err = await client.embeddings.create({ model: "emb-oa", input: "alpha" }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(502);
    expect(err.code).toBe("upstream_error");
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("answers 402 before any upstream call when the balance is short", async () => {
    const poor = await createAccount(server, { usd: 0 });
    const c = new OpenAI({ apiKey: poor.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await c.embeddings.create({ model: "emb-oa", input: "alpha" }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.code).toBe("insufficient_user_quota");
    expect(oa.requests).toHaveLength(0);
  });
});

describe("embedding request errors", () => {
  const bad = async (body: Record<string, unknown>) => {
    const err = await client.embeddings.create(body as never).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    return err as InstanceType<typeof OpenAI.APIError>;
  };

  it.each([
    ["an empty string", { input: "" }, /empty string/],
    ["an empty string in the list", { input: ["a", ""] }, /input\[1\]/],
    ["an empty list", { input: [] }, /empty array/],
    ["too many inputs", { input: Array.from({ length: 2049 }, () => "a") }, /2048/],
    ["a bad encoding_format", { input: "a", encoding_format: "hex" }, /encoding_format/],
  ])("rejects %s with a 400 naming the field", async (_name, body, message) => {
    const err = await bad({ model: "emb-oa", ...body });
    expect(err.status).toBe(400);
    expect(err.code).toBe("invalid_request");
    expect(err.message).toMatch(message);
    expect(err.headers?.get("x-should-retry")).toBe("false");
    expect(oa.requests).toHaveLength(0);
  });

  it("rejects an image model with model_not_supported naming it, and an unknown one with model_not_found", async () => {
    const wrong = await bad({ model: "img-oa", input: "a" });
    expect([wrong.status, wrong.code]).toEqual([400, "model_not_supported"]);
    expect(wrong.message).toContain("img-oa");
    const unknown = await bad({ model: "nope", input: "a" });
    expect([unknown.status, unknown.code]).toEqual([404, "model_not_found"]);
  });

  it("refuses token arrays on an upstream that takes only text", async () => {
    const err = await bad({ model: "emb-ge", input: [[1, 2]] });
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/token arrays/);
    expect(ge.requests).toHaveLength(0);
  });
});
