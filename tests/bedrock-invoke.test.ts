/**
 * Claude on Bedrock through InvokeModel with Anthropic's Messages body (issue 34; an upstream with
 * `claudeApi: "invoke"`), against a fake Bedrock that recomputes every SigV4 signature and speaks
 * the InvokeModelWithResponseStream wire: `chunk` events whose `bytes` are Anthropic's events in
 * base64, split across writes. Every client protocol, usage and cache classes billed to the
 * micro-dollar, a Messages client passed through (thinking signatures, betas as the body's
 * `anthropic_beta`), Bedrock's invocation metrics kept out of the client's stream.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatUsd } from "../lib/billing/money";
import { BEDROCK_KEYS, BEDROCK_REGION, startFakeBedrock, type FakeBedrock } from "./fakes/bedrock-upstream";
import { createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { startTestServer, type TestServer } from "./support/server";
import { clientUsage, expectedUsage, type Inbound } from "./support/usage-shapes";

const PROFILE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const PRICE = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWrite5mPerMTok: 3.75 };

let fake: FakeBedrock;
let server: TestServer;
let key: string;

beforeAll(async () => {
  fake = await startFakeBedrock();
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "br-invoke", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, ...BEDROCK_KEYS, claudeApi: "invoke", timeoutMs: 5000 },
        { id: "br-invoke-wrong", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, accessKeyId: BEDROCK_KEYS.accessKeyId, secretAccessKey: "not-the-secret", claudeApi: "invoke", timeoutMs: 5000 },
      ],
      models: [
        { id: "claude-invoke", kind: "text", upstream: "br-invoke", upstreamModel: PROFILE, price: PRICE, maxOutputTokens: 4096 },
        { id: "llama-invoke", kind: "text", upstream: "br-invoke", upstreamModel: "meta.llama3-3-70b-instruct-v1:0", price: PRICE, maxOutputTokens: 4096 },
        { id: "claude-invoke-wrong", kind: "text", upstream: "br-invoke-wrong", upstreamModel: PROFILE, price: PRICE },
      ],
    },
  });
  ({ key } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.script = { text: "Hello from Claude on Bedrock.", reasoning: "Let me think.", usage: { inputTokens: 30, outputTokens: 12, cacheReadInputTokens: 1000, cacheWriteInputTokens: 200 } };
});

function request(inbound: Inbound, model: string, stream: boolean): { path: string; headers: Record<string, string>; body: unknown } {
  const bearer = { authorization: `Bearer ${key}` };
  switch (inbound) {
    case "chat":
      return { path: "/v1/chat/completions", headers: bearer, body: { model, max_tokens: 3000, reasoning_effort: "low", messages: [{ role: "user", content: "Hi" }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) } };
    case "responses":
      return { path: "/v1/responses", headers: bearer, body: { model, max_output_tokens: 3000, input: "Hi", stream } };
    case "messages":
      return {
        path: "/v1/messages",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "anthropic-beta": "interleaved-thinking-2025-05-14,context-1m-2025-08-07" },
        body: { model, max_tokens: 3000, thinking: { type: "enabled", budget_tokens: 2048 }, system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }], messages: [{ role: "user", content: "Hi" }], stream },
      };
    case "gemini":
      return { path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`, headers: { "x-goog-api-key": key }, body: { contents: [{ role: "user", parts: [{ text: "Hi" }] }] } };
  }
}

async function call(inbound: Inbound, model: string, stream: boolean) {
  const r = request(inbound, model, stream);
  const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
  return { res, text: await res.text() };
}

// Anthropic's input_tokens leaves the cache out: 30 + 1,000 read + 200 written = 1,230 prompt tokens.
const BILLED = { input: 1230, cacheRead: 1000, cacheWrite5m: 200, cacheWrite1h: 0, output: 12, reasoning: 0 };
// 30 × 3 + 1,000 × 0.3 + 200 × 3.75 + 12 × 15 µUSD
const CHARGE = 90 + 300 + 750 + 180;

const CASES: Array<[Inbound, boolean]> = [];
for (const inbound of ["chat", "responses", "messages", "gemini"] as const) for (const stream of [false, true]) CASES.push([inbound, stream]);

describe("Claude through Bedrock InvokeModel, every client protocol", () => {
  it.each(CASES)("%s client, stream %s: signed, Anthropic's body on /invoke, usage and charge as Bedrock billed", async (inbound, stream) => {
    const { res, text } = await call(inbound, "claude-invoke", stream);
    expect(res.status, text).toBe(200);
    const sent = fake.requests[0]!;
    expect(sent.signatureOk).toBe(true);
    expect(sent.path).toBe(`/model/${encodeURIComponent(PROFILE)}/${stream ? "invoke-with-response-stream" : "invoke"}`);
    expect(sent.body.anthropic_version).toBe("bedrock-2023-05-31");
    expect(sent.body).not.toHaveProperty("model");
    expect(sent.body).not.toHaveProperty("stream");
    if (inbound === "messages" || inbound === "chat") expect(sent.body.thinking).toMatchObject({ type: "enabled" });
    expect(clientUsage(inbound, stream, text)).toMatchObject(expectedUsage(inbound, BILLED));
    expect(text).not.toContain("amazon-bedrock-invocationMetrics");
    if (!stream) expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(CHARGE));
    const row = await logRowOf(server, res.headers.get("x-request-id")!);
    if (row) {
      expect(Number(row.cost_micro_usd)).toBe(CHARGE);
      expect(row).toMatchObject({ upstream_protocol: "bedrock", input_tokens: 1230, cache_read_tokens: 1000, cache_write_5m_tokens: 200, output_tokens: 12 });
    }
  });

  it("a Messages client passes through: its cache_control and thinking as sent, betas in the body, the thinking signature back", async () => {
    const { res, text } = await call("messages", "claude-invoke", false);
    expect(res.status, text).toBe(200);
    const sent = fake.requests[0]!.body;
    expect(sent.system).toEqual([{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }]);
    expect(sent.anthropic_beta).toEqual(["interleaved-thinking-2025-05-14", "context-1m-2025-08-07"]);
    expect(fake.requests[0]!.headers["anthropic-beta"]).toBeUndefined();
    const answer = JSON.parse(text);
    expect(answer).toMatchObject({ model: "claude-invoke", content: [{ type: "thinking", thinking: "Let me think.", signature: "fake-bedrock-anthropic-signature" }, { type: "text", text: "Hello from Claude on Bedrock." }] });
  });

  it("streamed to a Messages client: Anthropic's own events, signature and text whole", async () => {
    const { text } = await call("messages", "claude-invoke", true);
    expect(text).toContain("event: message_start");
    expect(text).toContain('"signature":"fake-bedrock-anthropic-signature"');
    expect(text).toContain("event: message_stop");
    expect(text.match(/"text":"[^"]*"/g)!.map((t) => JSON.parse(`{${t}}`).text).join("")).toBe("Hello from Claude on Bedrock.");
  });

  it("tools: a chat client's tool call comes back whole from input_json_delta pieces", async () => {
    fake.script = { text: "", toolCall: { name: "get_weather", input: { city: "Paris" } }, usage: { inputTokens: 50, outputTokens: 20 } };
    const body = {
      model: "claude-invoke",
      max_tokens: 500,
      stream: true,
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
    };
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(fake.requests[0]!.body.tools).toEqual([{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }]);
    const args = [...text.matchAll(/"arguments":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`)).join("");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    expect(text).toContain('"finish_reason":"tool_calls"');
  });

  it("a model that is not Claude on the same upstream still goes through Converse", async () => {
    const { res, text } = await call("chat", "llama-invoke", false);
    expect(res.status, text).toBe(200);
    expect(fake.requests[0]!.path).toBe(`/model/${encodeURIComponent("meta.llama3-3-70b-instruct-v1:0")}/converse`);
  });

  it("an exception mid-stream ends the client's stream with its protocol's error event", async () => {
    fake.script = { ...fake.script, streamException: true };
    const { res, text } = await call("messages", "claude-invoke", true);
    expect(res.status).toBe(200);
    expect(text).toMatch(/event: error/);
    expect(text).toMatch(/modelStreamErrorException/);
  });

  it("a wrong secret: refused by the signature check, a 502 without the secret, not charged", async () => {
    const { res, text } = await call("messages", "claude-invoke-wrong", false);
    expect(res.status).toBe(502);
    expect(text).not.toContain("not-the-secret");
    expect(fake.requests[0]!.signatureOk).toBe(false);
  });
});
