/**
 * OpenTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT set the server exports one span per API request
 * with the GenAI attributes, and child spans for the hold, the upstream call and the settlement,
 * to an OTLP/HTTP receiver on loopback; the prompt and the completion never reach it unless
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { demoCatalog } from "../lib/config/demo-catalog";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./fakes/openai-upstream";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./fakes/otlp-receiver";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { textGatewayConfig } from "./text-config";

let upstream: FakeTextUpstream;
let otlp: OtlpReceiver;
let capturing: OtlpReceiver;
let server: TestServer;
let opted: TestServer;

const MS = 1_000_000n;
// Markers that cannot occur by chance in the export: trace and span ids are hex.
const PROMPT = "the secret prompt text qzx7f3a";
const REPLY = "a private completion wvk9c1d";

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  upstream.reset({ text: REPLY, usage: { input: 40, output: 6, cacheRead: 10, reasoning: 2 } });
  [otlp, capturing] = await Promise.all([startOtlpReceiver(), startOtlpReceiver()]);
  const text = textGatewayConfig({ openai: upstream.baseUrl, anthropic: upstream.baseUrl, gemini: upstream.baseUrl, openaiKey: OPENAI_FAKE_KEY, anthropicKey: "x", geminiKey: "x" });
  // The demo upstream's embedding, image and video models (its text model is already there).
  // One redaction guardrail (its pattern occurs only in the redaction test's prompt).
  const guardrails = [{ id: "mask-cards", stage: "pre_request" as const, type: "regex" as const, pattern: "card-[0-9]{4}-[0-9]{4}", action: "redact" as const }];
  const config = { ...text, models: [...text.models, ...demoCatalog.models.filter((m) => m.kind !== "text")], guardrails };
  const env = (endpoint: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_SERVICE_NAME: "gw-test" });
  [server, opted] = await Promise.all([
    startTestServer({ config, env: env(otlp.endpoint) }),
    startTestServer({ config, env: { ...env(capturing.endpoint), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" } }),
  ]);
});
afterAll(async () => {
  await server?.dispose();
  await opted?.dispose();
  await upstream?.close();
  await otlp?.close();
  await capturing?.close();
});

function tree(spans: ReceivedSpan[], requestId: string) {
  const root = spans.find((s) => s.attributes["gateway.request_id"] === requestId);
  if (!root) return null;
  const children = spans.filter((s) => s.traceId === root.traceId && s.parentSpanId === root.spanId);
  return { root, children, child: (name: string) => children.find((c) => c.name === name) };
}

it("exports a request span with the GenAI attributes and the hold, upstream and settlement as children", async () => {
  const { key } = await createAccount(server, { usd: 1 });
  const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const { response } = await client.chat.completions.create({ model: "chat-openai", max_tokens: 50, messages: [{ role: "user", content: PROMPT }] }).withResponse();
  const requestId = response.headers.get("x-request-id")!;
  await otlp.waitFor((spans) => {
    const t = tree(spans, requestId);
    return !!t && ["gateway.hold", "upstream POST", "gateway.settle"].every((n) => t.child(n));
  });
  const t = tree(otlp.spans, requestId)!;
  expect(t.root.name).toBe("chat chat-openai");
  expect(t.root.kind).toBe(2);
  expect(t.root.service).toBe("gw-test");
  expect(t.root.attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "chat-openai",
    "gen_ai.response.model": "gpt-fake",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.stream": false,
    "gen_ai.usage.input_tokens": 40,
    "gen_ai.usage.output_tokens": 6,
    "gen_ai.usage.cache_read.input_tokens": 10,
    "gen_ai.usage.reasoning.output_tokens": 2,
    "gateway.upstream.id": "oa",
    "gateway.settlement.reason": "completed",
    "http.route": "/v1/chat/completions",
    "http.response.status_code": 200,
  });
  // The charge the client was told, to the micro-dollar.
  expect(t.root.attributes["gateway.cost.micro_usd"]).toBe(Math.round(Number(response.headers.get("x-gateway-cost-usd")) * 1e6));
  expect(t.child("gateway.hold")!.attributes["gateway.hold.outcome"]).toBe("held");
  const up = t.child("upstream POST")!;
  expect(up.kind).toBe(3);
  expect(up.attributes).toMatchObject({ "server.address": "127.0.0.1", "http.response.status_code": 200 });
  expect(t.child("gateway.settle")!.attributes["gateway.settlement.reason"]).toBe("completed");
  // Children nest inside the request, in order: hold before the upstream call before the settlement.
  expect(t.child("gateway.hold")!.endNs <= up.startNs + MS).toBe(true);
  expect(up.startNs <= t.child("gateway.settle")!.startNs + MS).toBe(true);
});

it("POST /v1/responses, streamed or not, makes the same spans as the other protocols (one text call for every entry)", async () => {
  const { key } = await createAccount(server, { usd: 1 });
  const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const plain = await client.responses.create({ model: "chat-openai", max_output_tokens: 50, input: "hi" }).withResponse();
  const stream = await client.responses.create({ model: "chat-openai", max_output_tokens: 50, input: "hi", stream: true }).withResponse();
  for await (const _ of stream.data) void _;
  for (const requestId of [plain.response.headers.get("x-request-id")!, stream.response.headers.get("x-request-id")!]) {
    await otlp.waitFor((spans) => {
      const t = tree(spans, requestId);
      return !!t && ["gateway.hold", "upstream POST", "gateway.settle"].every((n) => t.child(n));
    });
    const t = tree(otlp.spans, requestId)!;
    expect(t.root.attributes).toMatchObject({ "gen_ai.request.model": "chat-openai", "http.route": "/v1/responses", "gateway.settlement.reason": "completed" });
  }
});

it.each([
  { name: "embeddings", path: "/v1/embeddings", body: { model: "demo-embed", input: "a small red fox" }, operation: "embeddings", usage: { "gen_ai.usage.input_tokens": expect.any(Number) }, settlement: "completed" },
  { name: "images", path: "/v1/images/generations", body: { model: "demo-image-mini", prompt: "a fox", size: "1024x1024" }, operation: "image_generation", usage: {}, settlement: "completed" },
  { name: "a video submission", path: "/v1/videos", body: { model: "demo-video", prompt: "a paper boat", seconds: "10", size: "1920x1080" }, operation: "video_generation", usage: {}, settlement: "task_submitted" },
])("$name: the same hold and settlement spans and GenAI attributes as text (the billing port is traced, whatever the capability)", async ({ path, body, operation, usage, settlement }) => {
  const { key } = await createAccount(server, { usd: 1 });
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const requestId = res.headers.get("x-request-id")!;
  await otlp.waitFor((spans) => {
    const t = tree(spans, requestId);
    return !!t && ["gateway.hold", "gateway.settle"].every((n) => t.child(n)) && t.root.attributes["http.route"] !== undefined;
  });
  const t = tree(otlp.spans, requestId)!;
  const charged = Math.round(Number(res.headers.get("x-gateway-cost-usd")) * 1e6);
  expect(charged).toBeGreaterThan(0);
  expect(t.root.name).toBe(`${operation} ${body.model}`);
  expect(t.root.attributes).toMatchObject({
    "gen_ai.operation.name": operation,
    "gen_ai.request.model": body.model,
    "gen_ai.response.model": body.model,
    "gen_ai.provider.name": "demo",
    "gateway.upstream.id": "demo",
    "gateway.settlement.reason": settlement,
    "gateway.cost.micro_usd": charged,
    "http.route": path,
    "http.response.status_code": 200,
    ...usage,
  });
  expect(t.root.attributes["gen_ai.request.stream"]).toBeUndefined();
  expect(t.child("gateway.hold")!.attributes).toMatchObject({ "gateway.hold.outcome": "held" });
  expect(t.child("gateway.settle")!.attributes).toMatchObject({ "gateway.settlement.reason": settlement, "gateway.charged.micro_usd": charged });
  expect(t.child("gateway.hold")!.endNs <= t.child("gateway.settle")!.startNs + MS).toBe(true);
});

it("a refused hold is on its span (402: the outcome names the refusal)", async () => {
  const { key } = await createAccount(server, { usd: 0 });
  const res = await fetch(`${server.url}/v1/embeddings`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "demo-embed", input: "x" }) });
  expect(res.status).toBe(402);
  const { error } = (await res.json()) as { error: { code: string } };
  const requestId = res.headers.get("x-request-id")!;
  await otlp.waitFor((spans) => !!tree(spans, requestId)?.child("gateway.settle"));
  const t = tree(otlp.spans, requestId)!;
  expect(t.child("gateway.hold")!.attributes["gateway.hold.outcome"]).toBe("insufficient_balance");
  expect(t.root.attributes).toMatchObject({ "gen_ai.operation.name": "embeddings", "gateway.settlement.reason": "rejected", "error.type": error.code });
});

it("a stream's span ends with the stream and carries the time to the first chunk", async () => {
  const { key } = await createAccount(server, { usd: 1 });
  const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const { data: stream, response } = await client.chat.completions.create({ model: "chat-openai", stream: true, messages: [{ role: "user", content: PROMPT }] }).withResponse();
  let text = "";
  for await (const ev of stream) text += ev.choices[0]?.delta?.content ?? "";
  expect(text).toContain("private completion");
  const requestId = response.headers.get("x-request-id")!;
  await otlp.waitFor((spans) => !!tree(spans, requestId)?.child("gateway.settle"));
  const t = tree(otlp.spans, requestId)!;
  expect(t.root.attributes).toMatchObject({ "gen_ai.request.stream": true, "gen_ai.usage.output_tokens": 6, "gateway.settlement.reason": "completed" });
  expect(t.root.attributes["gen_ai.response.time_to_first_chunk"]).toBeGreaterThan(0);
  // The SDK stamps span starts to the millisecond: compare within 1 ms.
  expect(t.child("gateway.settle")!.endNs <= t.root.endNs + MS).toBe(true);
});

it("a refused request is a span too (401, no GenAI attributes), and nothing carries the prompt or the completion", async () => {
  const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { authorization: "Bearer sk-nope", "content-type": "application/json" }, body: "{}" });
  expect(res.status).toBe(401);
  const requestId = res.headers.get("x-request-id")!;
  await otlp.waitFor((spans) => !!tree(spans, requestId));
  const t = tree(otlp.spans, requestId)!;
  expect(t.root.name).toBe("POST /v1/chat/completions");
  expect(t.root.attributes["http.response.status_code"]).toBe(401);
  const all = otlp.bodies.join("\n");
  expect(all).not.toContain("qzx7f3a");
  expect(all).not.toContain("wvk9c1d");
  expect(all).not.toMatch(/sk-[A-Za-z0-9_-]{10,}/); // no API key, ours or the upstream's
});

it("with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true the request and response bodies are on the span", async () => {
  const { key } = await createAccount(opted, { usd: 1 });
  const client = new OpenAI({ apiKey: key, baseURL: `${opted.url}/v1`, maxRetries: 0 });
  const { response } = await client.chat.completions.create({ model: "chat-openai", messages: [{ role: "user", content: PROMPT }] }).withResponse();
  const requestId = response.headers.get("x-request-id")!;
  await capturing.waitFor((spans) => !!tree(spans, requestId)?.child("gateway.settle"));
  const { root } = tree(capturing.spans, requestId)!;
  expect(String(root.attributes["gateway.request.body"])).toContain(PROMPT);
  expect(String(root.attributes["gateway.response.body"])).toContain(REPLY);
  expect(capturing.bodies.join("\n")).not.toContain(key);
});

it("a pre_request redaction leaves no match in the exported spans, streamed or not (the traced request body is the masked one)", async () => {
  const SECRET = "card-4242-9191";
  const { key } = await createAccount(opted, { usd: 1 });
  const client = new OpenAI({ apiKey: key, baseURL: `${opted.url}/v1`, maxRetries: 0 });
  const asked = `${PROMPT} pay with ${SECRET} please`;
  upstream.reset({ text: REPLY });
  const plain = await client.chat.completions.create({ model: "chat-openai", messages: [{ role: "user", content: asked }] }).withResponse();
  const stream = await client.chat.completions.create({ model: "chat-openai", stream: true, messages: [{ role: "user", content: asked }] }).withResponse();
  for await (const _ of stream.data);
  const ids = [plain.response.headers.get("x-request-id")!, stream.response.headers.get("x-request-id")!];
  await capturing.waitFor((spans) => ids.every((id) => !!tree(spans, id)?.root.attributes["gateway.request.body"]) && ids.every((id) => !!tree(spans, id)?.child("gateway.settle")));
  for (const id of ids) {
    const body = String(tree(capturing.spans, id)!.root.attributes["gateway.request.body"]);
    expect(body).toContain(PROMPT); // the prompt is captured ...
    expect(body).not.toContain(SECRET); // ... as the guardrail left it
  }
  // Nothing in any export carries the match (nor its digits), and the upstream got the masked text too.
  const all = capturing.bodies.join("\n");
  expect(all).not.toContain("4242-9191");
  expect(upstream.requests.length).toBe(2);
  for (const r of upstream.requests) expect(JSON.stringify(r.body)).not.toContain(SECRET);
});
