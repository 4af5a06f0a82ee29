/**
 * Azure OpenAI upstreams (issue 34) through the real server and a fake Azure that checks what
 * Azure checks: the v1 path with the deployment in `model`, or the deployment path with a
 * supported `api-version`; the `api-key` header or an Entra ID token fetched by the gateway
 * (client credentials, cached until near expiry); content-filter results passed through to a
 * chat client; a content-filter refusal as each client protocol's own 400, free of charge.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatUsd } from "../lib/billing/money";
import {
  AZURE_DEPLOYMENT,
  AZURE_FAKE_KEY,
  ENTRA_CLIENT,
  FILTER_TRIGGER,
  startFakeAzureOpenAI,
  startFakeEntra,
  type FakeEntra,
} from "./fakes/azure-openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { startTestServer, type TestServer } from "./support/server";
import { sseEvents } from "./support/usage-shapes";

let keyed: FakeTextUpstream;
let entraUp: FakeTextUpstream;
let entra: FakeEntra;
let server: TestServer;
let key: string;

const PRICE = { inputPerMTok: 2.5, outputPerMTok: 10 };

beforeAll(async () => {
  keyed = await startFakeAzureOpenAI({ auth: "api-key" });
  entraUp = await startFakeAzureOpenAI({ auth: "bearer" });
  entra = await startFakeEntra();
  const model = (id: string, upstream: string) => ({ id, kind: "text", upstream, upstreamModel: AZURE_DEPLOYMENT, price: PRICE });
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "az-v1", protocol: "azure-openai", baseUrl: keyed.baseUrl, apiKey: AZURE_FAKE_KEY, timeoutMs: 5000 },
        { id: "az-dated", protocol: "azure-openai", baseUrl: keyed.baseUrl, apiKey: AZURE_FAKE_KEY, apiVersion: "2024-10-21", timeoutMs: 5000 },
        { id: "az-old", protocol: "azure-openai", baseUrl: keyed.baseUrl, apiKey: AZURE_FAKE_KEY, apiVersion: "2023-05-15", timeoutMs: 5000 },
        { id: "az-entra", protocol: "azure-openai", baseUrl: entraUp.baseUrl, tokenUrl: entra.tokenUrl, ...ENTRA_CLIENT, timeoutMs: 5000 },
      ],
      models: [model("az-chat", "az-v1"), model("az-dated-chat", "az-dated"), model("az-old-chat", "az-old"), model("az-entra-chat", "az-entra")],
    },
  });
  ({ key } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await server?.dispose();
  await keyed?.close();
  await entraUp?.close();
  await entra?.close();
});
beforeEach(() => {
  keyed.reset({ text: "Hello from Azure.", usage: { input: 20, output: 8 } });
  entraUp.reset({ text: "Hello from Azure.", usage: { input: 20, output: 8 } });
});

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { res, text: await res.text() };
}
const chat = (model: string, content: string, extra: Record<string, unknown> = {}) =>
  post("/v1/chat/completions", { authorization: `Bearer ${key}` }, { model, max_tokens: 100, messages: [{ role: "user", content }], ...extra });
const messages = (model: string, content: string) =>
  post("/v1/messages", { "x-api-key": key, "anthropic-version": "2023-06-01" }, { model, max_tokens: 100, messages: [{ role: "user", content }] });
const gemini = (model: string, content: string) => post(`/v1beta/models/${model}:generateContent`, { "x-goog-api-key": key }, { contents: [{ role: "user", parts: [{ text: content }] }] });
const responses = (model: string, content: string) => post("/v1/responses", { authorization: `Bearer ${key}` }, { model, max_output_tokens: 100, input: content });

// 20 × 2.5 + 8 × 10 µUSD
const CHARGE = 130;

describe("Azure OpenAI: paths, api-version and the key", () => {
  it("v1: /openai/v1/chat/completions, the deployment in model, the key in api-key (never a bearer); Azure's filter results reach a chat client", async () => {
    const { res, text } = await chat("az-chat", "Hi");
    expect(res.status, text).toBe(200);
    expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(CHARGE));
    const j = JSON.parse(text);
    expect(j.choices[0].message.content).toBe("Hello from Azure.");
    expect(j.prompt_filter_results[0].content_filter_results.hate).toEqual({ filtered: false, severity: "safe" });
    expect(j.choices[0].content_filter_results.violence).toEqual({ filtered: false, severity: "safe" });
    const sent = keyed.generationRequests()[0]!;
    expect(sent.path).toBe("/openai/v1/chat/completions");
    expect(sent.body.model).toBe(AZURE_DEPLOYMENT);
    expect(sent.headers["api-key"]).toBe(AZURE_FAKE_KEY);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("a dated api-version: the deployment path with ?api-version=, streamed to a chat client after Azure's filter-only first chunk", async () => {
    const { res, text } = await chat("az-dated-chat", "Hi", { stream: true, stream_options: { include_usage: true } });
    expect(res.status, text).toBe(200);
    expect(keyed.generationRequests()[0]!.path).toBe(`/openai/deployments/${AZURE_DEPLOYMENT}/chat/completions?api-version=2024-10-21`);
    const evs = sseEvents(text);
    expect(evs.map((e) => e.data.choices?.[0]?.delta?.content ?? "").join("")).toBe("Hello from Azure.");
    expect(evs.at(-1)!.data.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 8, cost_usd: CHARGE / 1e6 });
  });

  it("every client protocol is served by an Azure deployment", async () => {
    for (const [call, pick] of [
      [messages, (j: any) => j.content[0].text],
      [gemini, (j: any) => j.candidates[0].content.parts[0].text],
      [responses, (j: any) => j.output.find((o: any) => o.type === "message").content[0].text],
    ] as const) {
      const { res, text } = await call("az-chat", "Hi");
      expect(res.status, text).toBe(200);
      expect(pick(JSON.parse(text))).toBe("Hello from Azure.");
    }
  });

  it("an api-version Azure does not know is Azure's 404, shown as an upstream failure, not charged", async () => {
    const { res, text } = await chat("az-old-chat", "Hi");
    expect(res.status).toBe(404);
    expect(JSON.parse(text).error.message).toMatch(/Resource not found/);
  });
});

describe("Azure OpenAI: Entra ID", () => {
  it("fetches a token with the client credentials once, caches it, and sends it as the bearer", async () => {
    const before = entra.requests.length;
    for (let i = 0; i < 3; i++) expect((await chat("az-entra-chat", "Hi")).res.status).toBe(200);
    expect(entra.requests.length - before).toBeLessThanOrEqual(1);
    expect(entra.requests.at(-1)).toEqual({ grant_type: "client_credentials", client_id: ENTRA_CLIENT.clientId, client_secret: ENTRA_CLIENT.clientSecret, scope: "https://cognitiveservices.azure.com/.default" });
    const sent = entraUp.generationRequests();
    expect(sent).toHaveLength(3);
    for (const r of sent) {
      expect(r.headers.authorization).toMatch(/^Bearer eyJ/);
      expect(r.headers["api-key"]).toBeUndefined();
    }
  });
});

describe("Azure OpenAI: content-filter refusals", () => {
  it.each([
    ["chat", () => chat("az-chat", FILTER_TRIGGER), (j: any) => [j.error.code, j.error.message]],
    ["messages", () => messages("az-chat", FILTER_TRIGGER), (j: any) => [j.type === "error" && j.error.code, j.error.message]],
    ["gemini", () => gemini("az-chat", FILTER_TRIGGER), (j: any) => [j.error.details?.find((d: any) => d.reason)?.reason, j.error.message]],
    ["responses", () => responses("az-chat", FILTER_TRIGGER), (j: any) => [j.error.code, j.error.message]],
  ] as const)("a %s client gets its protocol's 400 with code content_filter, and is not charged", async (_name, call, read) => {
    const { res, text } = await call();
    expect(res.status, text).toBe(400);
    const [code, message] = read(JSON.parse(text));
    expect(code).toBe("content_filter");
    expect(message).toMatch(/content filter refused the prompt: The response was filtered/);
    expect(keyed.generationRequests()).toHaveLength(1); // not retried, no failover
    const row = await logRowOf(server, res.headers.get("x-request-id")!);
    if (row) expect(Number(row.cost_micro_usd)).toBe(0);
  });
});
