/**
 * Google's surface with the newest @google/genai set up exactly as the README says (it defaults
 * to API version `v1`), and raw REST calls on `v1beta`: generate, stream (SSE and Google's JSON
 * array), countTokens, embedContent/batchEmbedContents (billed like /v1/embeddings), model
 * listing in Gemini's shape — against fake Gemini and Anthropic upstreams on loopback.
 */
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import { FAKE_GEMINI_KEY, startFakeGeminiEmbed, type FakeGeminiEmbed } from "./fakes/gemini-embed-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "./fakes/gemini-upstream";
import { FAKE_API_KEY, startFakeOpenAIMedia, type FakeOpenAIMedia } from "./fakes/openai-media-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let gemini: FakeTextUpstream;
let anthropic: FakeTextUpstream;
let gemb: FakeGeminiEmbed;
let oa: FakeOpenAIMedia;
let email: string;
let key: string;
let google: GoogleGenAI;

beforeAll(async () => {
  [gemini, anthropic, gemb, oa] = await Promise.all([startFakeGemini(), startFakeAnthropic(), startFakeGeminiEmbed(), startFakeOpenAIMedia()]);
  server = await startTestServer({
    // A small text-route limit, to see the 413 name it (the default is 32 MiB, Anthropic's own).
    env: { TEXT_BODY_LIMIT_MB: "1" },
    config: {
      upstreams: [
        { id: "ge", protocol: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_FAKE_KEY },
        { id: "an", protocol: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_FAKE_KEY },
        { id: "gemb", protocol: "gemini", baseUrl: gemb.baseUrl, apiKey: FAKE_GEMINI_KEY },
        { id: "oa", protocol: "openai", baseUrl: oa.baseUrl, apiKey: FAKE_API_KEY },
      ],
      models: [
        { id: "gem-chat", kind: "text", upstream: "ge", upstreamModel: "gemini-fake", price: { inputPerMTok: 1, outputPerMTok: 2 } },
        { id: "claude-chat", kind: "text", upstream: "an", upstreamModel: "claude-fake", price: { inputPerMTok: 1, outputPerMTok: 2 } },
        { id: "emb-ge", kind: "embedding", upstream: "gemb", upstreamModel: "gemini-embedding-001", price: { inputPerMTok: 1 } },
        { id: "emb-oa", kind: "embedding", upstream: "oa", upstreamModel: "text-embedding-3-small", price: { inputPerMTok: 1 } },
      ],
    },
  });
  ({ email, key } = await createAccount(server, { usd: 2 }));
  // The README's setup, unchanged.
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all([gemini?.close(), anthropic?.close(), gemb?.close(), oa?.close()]);
});
beforeEach(() => {
  gemini.reset();
  anthropic.reset();
  gemb.requests.length = 0;
  oa.requests.length = 0;
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": key, ...headers }, body: JSON.stringify(body) });

describe("@google/genai (newest, API version v1) with the README's setup", () => {
  it("generates, streams and counts tokens on a Gemini and on a converted upstream", async () => {
    for (const model of ["gem-chat", "claude-chat"]) {
      const r = await google.models.generateContent({ model, contents: "Say hi" });
      expect(r.text).toBe("Hello from the fake upstream!");
      let text = "";
      for await (const c of await google.models.generateContentStream({ model, contents: "Say hi" })) text += c.text ?? "";
      expect(text).toBe("Hello from the fake upstream!");
      const count = await google.models.countTokens({ model, contents: "How many tokens is this sentence?" });
      expect(count.totalTokens).toBeGreaterThan(3);
    }
    // The SDK really used v1, and the fakes saw their own protocols.
    expect(gemini.generationRequests().length).toBe(2);
    expect(anthropic.generationRequests().length).toBe(2);
  });

  it("embeds through batchEmbedContents, forwards Gemini hints to Gemini, and bills the tokens", async () => {
    const before = await balanceUsd(server, email);
    const r = await google.models.embedContent({ model: "emb-ge", contents: ["alpha", "beta gamma"], config: { taskType: "RETRIEVAL_DOCUMENT", outputDimensionality: 4 } });
    expect(r.embeddings?.map((e) => e.values)).toEqual([gemb.vectorFor("alpha", 4), gemb.vectorFor("beta gamma", 4)]);
    expect(gemb.requests[0]!.body.requests[0]).toMatchObject({ taskType: "RETRIEVAL_DOCUMENT", outputDimensionality: 4 });
    const after = await balanceUsd(server, email);
    expect(after).toBeLessThan(before);
  });

  it("lists and gets models in Gemini's shape under v1", async () => {
    const names: string[] = [];
    for await (const m of await google.models.list()) names.push(m.name ?? "");
    expect(names).toEqual(expect.arrayContaining(["models/gem-chat", "models/claude-chat", "models/emb-ge"]));
    const m = await google.models.get({ model: "gem-chat" });
    expect(m.name).toBe("models/gem-chat");
    expect(m.supportedActions).toEqual(expect.arrayContaining(["generateContent", "countTokens"]));
  });
});

describe("Google REST on v1beta and v1", () => {
  it("streamGenerateContent without alt=sse answers Google's JSON array; with it, SSE", async () => {
    for (const v of ["v1beta", "v1"]) {
      const arr = await post(`/${v}/models/gem-chat:streamGenerateContent`, { contents: [{ role: "user", parts: [{ text: "hi" }] }] });
      expect(arr.status).toBe(200);
      expect(arr.headers.get("content-type")).toContain("application/json");
      const chunks = JSON.parse(await arr.text()) as Array<{ candidates: Array<{ content: { parts: Array<{ text?: string }> } }> }>;
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.map((c) => c.candidates[0]!.content.parts.map((p) => p.text ?? "").join("")).join("")).toBe("Hello from the fake upstream!");
      const sse = await post(`/${v}/models/claude-chat:streamGenerateContent?alt=sse`, { contents: [{ role: "user", parts: [{ text: "hi" }] }] });
      expect(sse.headers.get("content-type")).toContain("text/event-stream");
      expect(await sse.text()).toMatch(/^data: /);
    }
  });

  it("a hint the serving upstream lacks is named in the header and on the request-log row", async () => {
    const r = await post("/v1/models/claude-chat:generateContent", { contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { seed: 7 } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-gateway-dropped-params")).toBe("generationConfig.seed");
    const id = r.headers.get("x-request-id")!;
    let rows: Array<{ dropped_params: string | null }> = [];
    for (let i = 0; i < 50 && !rows.length; i++) {
      rows = await server.query("select dropped_params from request_logs where request_id = $1", [id]);
      if (!rows.length) await new Promise((res) => setTimeout(res, 100));
    }
    expect(rows[0]?.dropped_params).toBe("generationConfig.seed");
  });

  it("embedContent (one document) and batchEmbedContents on any embedding upstream", async () => {
    const one = await post("/v1beta/models/emb-ge:embedContent", { content: { parts: [{ text: "alpha" }] } });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ embedding: { values: gemb.vectorFor("alpha") } });
    // To an OpenAI embedding model: Gemini-only hints are dropped and named.
    const batch = await post("/v1/models/emb-oa:batchEmbedContents", {
      requests: ["a", "b"].map((text) => ({ model: "models/emb-oa", content: { parts: [{ text }] }, taskType: "RETRIEVAL_QUERY" })),
    });
    expect(batch.status).toBe(200);
    expect(batch.headers.get("x-gateway-dropped-params")).toBe("taskType");
    const body = (await batch.json()) as { embeddings: Array<{ values: number[] }> };
    expect(body.embeddings).toHaveLength(2);
    expect(oa.requests[0]!.body).toMatchObject({ model: "text-embedding-3-small", input: ["a", "b"] });
    expect(oa.requests[0]!.body).not.toHaveProperty("taskType");
  });

  it("refuses what it cannot take with a 400 naming the field, never a 405", async () => {
    const wrongModel = await post("/v1beta/models/emb-ge:batchEmbedContents", { requests: [{ model: "models/other", content: { parts: [{ text: "a" }] } }] });
    expect(wrongModel.status).toBe(400);
    expect(JSON.stringify(await wrongModel.json())).toContain("requests[0].model");
    const image = await post("/v1beta/models/emb-ge:embedContent", { content: { parts: [{ inlineData: { mimeType: "image/png", data: "AA==" } }] } });
    expect(image.status).toBe(400);
    expect(JSON.stringify(await image.json())).toContain("content.parts[0]");
    const count = await post("/v1/models/gem-chat:countTokens", { contents: [{ role: "user", parts: [{ text: "hello there" }] }] });
    expect(count.status).toBe(200);
    expect(((await count.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    const big = await post("/v1/models/gem-chat:generateContent", { contents: [{ role: "user", parts: [{ text: "x".repeat(1_100_000) }] }] });
    expect(big.status).toBe(413);
    expect(JSON.stringify(await big.json())).toContain("1 MiB (1048576 bytes)");
    const unknown = await post("/v1/models/nope:generateContent", { contents: [{ role: "user", parts: [{ text: "x" }] }] });
    expect(unknown.status).toBe(404);
  });
});
