/**
 * Amazon Bedrock upstreams (issue 34) through the real server and a fake Bedrock that verifies
 * every SigV4 signature by recomputing it: Converse and ConverseStream (AWS's binary event
 * stream, split across writes) for every client protocol, static keys and temporary ones with a
 * session token, a cross-region inference profile id in the path, tools and Claude's thinking,
 * usage billed to the micro-dollar, and a wrong key refused as AWS refuses it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatUsd } from "../lib/billing/money";
import { BEDROCK_KEYS, BEDROCK_REGION, BEDROCK_TEMP_KEYS, startFakeBedrock, type FakeBedrock } from "./fakes/bedrock-upstream";
import { createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { startTestServer, type TestServer } from "./support/server";
import { clientUsage, expectedUsage, type Inbound } from "./support/usage-shapes";

const PROFILE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
// Claude Sonnet 4.5 on Bedrock, USD per million tokens.
const PRICE = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWrite5mPerMTok: 3.75 };

let fake: FakeBedrock;
let server: TestServer;
let key: string;

beforeAll(async () => {
  fake = await startFakeBedrock();
  const model = (id: string, upstream: string) => ({ id, kind: "text", upstream, upstreamModel: PROFILE, price: PRICE, maxOutputTokens: 4096 });
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "br", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, ...BEDROCK_KEYS, timeoutMs: 5000 },
        { id: "br-temp", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, ...BEDROCK_TEMP_KEYS, timeoutMs: 5000 },
        { id: "br-wrong", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, accessKeyId: BEDROCK_KEYS.accessKeyId, secretAccessKey: "not-the-secret", timeoutMs: 5000 },
      ],
      models: [model("claude-br", "br"), model("claude-br-temp", "br-temp"), model("claude-br-wrong", "br-wrong")],
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
  fake.script = { text: "Hello from Bedrock.", reasoning: "Let me think.", usage: { inputTokens: 30, outputTokens: 12, cacheReadInputTokens: 1000, cacheWriteInputTokens: 200 } };
});

function request(inbound: Inbound, model: string, stream: boolean): { path: string; headers: Record<string, string>; body: unknown } {
  const bearer = { authorization: `Bearer ${key}` };
  switch (inbound) {
    case "chat":
      return { path: "/v1/chat/completions", headers: bearer, body: { model, max_tokens: 3000, reasoning_effort: "low", messages: [{ role: "user", content: "Hi" }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) } };
    case "responses":
      return { path: "/v1/responses", headers: bearer, body: { model, max_output_tokens: 3000, input: "Hi", stream } };
    case "messages":
      return { path: "/v1/messages", headers: { "x-api-key": key, "anthropic-version": "2023-06-01" }, body: { model, max_tokens: 3000, thinking: { type: "enabled", budget_tokens: 2048 }, messages: [{ role: "user", content: "Hi" }], stream } };
    case "gemini":
      return { path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`, headers: { "x-goog-api-key": key }, body: { contents: [{ role: "user", parts: [{ text: "Hi" }] }] } };
  }
}

async function call(inbound: Inbound, model: string, stream: boolean) {
  const r = request(inbound, model, stream);
  const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
  return { res, text: await res.text() };
}

// Converse's inputTokens leaves the cache out: 30 + 1,000 read + 200 written = 1,230 prompt tokens.
const BILLED = { input: 1230, cacheRead: 1000, cacheWrite5m: 200, cacheWrite1h: 0, output: 12, reasoning: 0 };
// 30 × 3 + 1,000 × 0.3 + 200 × 3.75 + 12 × 15 µUSD
const CHARGE = 90 + 300 + 750 + 180;

const CASES: Array<[Inbound, boolean]> = [];
for (const inbound of ["chat", "responses", "messages", "gemini"] as const) for (const stream of [false, true]) CASES.push([inbound, stream]);

describe("Bedrock Converse through every client protocol", () => {
  it.each(CASES)("%s client, stream %s: signed, the profile id in the path, usage and charge as Bedrock billed", async (inbound, stream) => {
    const { res, text } = await call(inbound, "claude-br", stream);
    expect(res.status, text).toBe(200);
    const sent = fake.requests[0]!;
    expect(sent.signatureOk).toBe(true);
    expect(sent.path).toBe(`/model/${encodeURIComponent(PROFILE)}/${stream ? "converse-stream" : "converse"}`);
    expect(sent.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${BEDROCK_KEYS.accessKeyId}/\\d{8}/${BEDROCK_REGION}/bedrock/aws4_request`));
    expect(sent.body.messages).toEqual([{ role: "user", content: [{ text: "Hi" }] }]);
    if (inbound === "messages" || inbound === "chat") expect(sent.body.additionalModelRequestFields.thinking).toMatchObject({ type: "enabled" });
    expect(clientUsage(inbound, stream, text)).toMatchObject(expectedUsage(inbound, BILLED));
    if (!stream) expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(CHARGE));
    const row = await logRowOf(server, res.headers.get("x-request-id")!);
    if (row) {
      expect(Number(row.cost_micro_usd)).toBe(CHARGE);
      expect(row).toMatchObject({ upstream_protocol: "bedrock", input_tokens: 1230, cache_read_tokens: 1000, cache_write_5m_tokens: 200, output_tokens: 12 });
    }
  });

  it("the answer and Claude's reasoning reach an Anthropic client, streamed", async () => {
    const { text } = await call("messages", "claude-br", true);
    expect(text).toContain('"thinking":"Let me think."');
    expect(text.match(/"text":"[^"]*"/g)!.map((t) => JSON.parse(`{${t}}`).text).join("")).toBe("Hello from Bedrock.");
  });

  it("tools: declared as toolSpec, a forced tool as toolChoice, the call back in the client's shape (streamed in pieces)", async () => {
    fake.script = { text: "", toolCall: { name: "get_weather", input: { city: "Paris" } }, usage: { inputTokens: 50, outputTokens: 20 } };
    const body = {
      model: "claude-br",
      max_tokens: 500,
      stream: true,
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather now", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    };
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(fake.requests[0]!.body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: "get_weather", description: "Weather now", inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } } } }],
      toolChoice: { tool: { name: "get_weather" } },
    });
    const args = [...text.matchAll(/"arguments":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`)).join("");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    expect(text).toContain('"finish_reason":"tool_calls"');
  });

  it("one call at a time (Converse has no switch): the gateway keeps the first call, plain and streamed, and names it", async () => {
    fake.script = { text: "", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }, { name: "get_weather", input: { city: "Rome" } }], usage: { inputTokens: 50, outputTokens: 20 } };
    const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const ask = (extra: Record<string, unknown>) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: "claude-br", max_tokens: 500, messages: [{ role: "user", content: "Weather?" }], tools, ...extra }),
      });
    const plain = await ask({ parallel_tool_calls: false });
    expect(plain.headers.get("x-gateway-enforced-params")).toBe("parallel_tool_calls");
    expect(plain.headers.get("x-gateway-dropped-params")).toBeNull();
    const j = (await plain.json()) as any;
    expect(j.choices[0].message.tool_calls.map((c: any) => JSON.parse(c.function.arguments).city)).toEqual(["Paris"]);
    const streamed = await ask({ parallel_tool_calls: false, stream: true });
    expect(streamed.headers.get("x-gateway-enforced-params")).toBe("parallel_tool_calls");
    const text = await streamed.text();
    expect(text).toContain("Paris");
    expect(text).not.toContain("Rome");
    // Without the ask, both come back.
    const both = (await (await ask({})).json()) as any;
    expect(both.choices[0].message.tool_calls).toHaveLength(2);
  });

  it("token log-probabilities (Converse has none): a 400 naming the field, before any call", async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "claude-br", logprobs: true, top_logprobs: 2, messages: [{ role: "user", content: "Hi" }] }),
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(body.error.param ?? body.error.message).toMatch(/logprobs/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("Bedrock credentials", () => {
  it("temporary keys: the session token is sent and signed", async () => {
    const { res, text } = await call("chat", "claude-br-temp", false);
    expect(res.status, text).toBe(200);
    const sent = fake.requests[0]!;
    expect(sent.signatureOk).toBe(true);
    expect(sent.headers["x-amz-security-token"]).toBe(BEDROCK_TEMP_KEYS.sessionToken);
    expect(String(sent.headers.authorization)).toMatch(/SignedHeaders=[^,]*x-amz-security-token/);
  });

  it("a wrong secret: AWS's 403 is the gateway's refused-credentials failure, with no secret in it, not charged", async () => {
    const { res, text } = await call("chat", "claude-br-wrong", false);
    expect(res.status).toBe(502);
    expect(text).toMatch(/refused the gateway's credentials/);
    expect(text).not.toContain("not-the-secret");
    expect(fake.requests[0]!.signatureOk).toBe(false);
  });

  it("an exception mid-stream ends the client's stream with its protocol's error event", async () => {
    fake.script = { ...fake.script, streamException: true };
    const { res, text } = await call("messages", "claude-br", true);
    expect(res.status).toBe(200);
    expect(text).toMatch(/event: error/);
    expect(text).toMatch(/throttlingException/);
  });
});

describe("Bedrock with no keys configured: the AWS SDK's default credential chain", () => {
  it("signs with the keys the chain finds (here: the server's AWS_* environment)", async () => {
    const chained = await startTestServer({
      env: { AWS_ACCESS_KEY_ID: BEDROCK_TEMP_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: BEDROCK_TEMP_KEYS.secretAccessKey, AWS_SESSION_TOKEN: BEDROCK_TEMP_KEYS.sessionToken },
      config: {
        upstreams: [{ id: "br-chain", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, timeoutMs: 5000 }],
        models: [{ id: "claude-chain", kind: "text", upstream: "br-chain", upstreamModel: PROFILE, price: PRICE }],
      },
    });
    try {
      const { key: k } = await createAccount(chained, { usd: 1 });
      const res = await fetch(`${chained.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": k, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "claude-chain", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] }),
      });
      expect(res.status, await res.text()).toBe(200);
      expect(fake.requests[0]).toMatchObject({ signatureOk: true, headers: { "x-amz-security-token": BEDROCK_TEMP_KEYS.sessionToken } });
    } finally {
      await chained.dispose();
    }
  });
});
