/**
 * Text generation on the embedded database (PGlite, the `npm start` default) — no direct SQL:
 * the demo chat model through all four SDKs, a converted call to a fake Anthropic upstream,
 * the exact charge and balance headers, 402 before the upstream, and leases given back.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsd } from "../lib/billing/money";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let anthropic: FakeTextUpstream;
let email: string;
let key: string;

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  server = await startTestServer({
    database: "pglite",
    config: {
      upstreams: [{ id: "demo", protocol: "demo" }, { id: "an", protocol: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_FAKE_KEY }],
      models: [
        { id: "demo-chat", kind: "text", upstream: "demo", ownedBy: "demo", price: { inputPerMTok: 0.5, outputPerMTok: 1.5 }, defaultMaxTokens: 256 },
        { id: "chat-an", kind: "text", upstream: "an", upstreamModel: "claude-fake", price: { inputPerMTok: 1, outputPerMTok: 2 }, defaultMaxTokens: 100 },
      ],
    },
  });
  ({ email, key } = await createAccount(server, { usd: 2 }));
});
afterAll(async () => {
  await server?.dispose();
  await anthropic?.close();
});

describe("text on PGlite", () => {
  it("the demo model answers every protocol, streamed word by word, with real usage", async () => {
    const oa = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const r = await oa.chat.completions.create({ model: "demo-chat", messages: [{ role: "user", content: "tell me about gateways" }] });
    expect(r.choices[0]!.message.content).toContain("tell me about gateways");
    expect(r.usage!.completion_tokens).toBeGreaterThan(5);
    let chunks = 0;
    let text = "";
    for await (const c of await oa.chat.completions.create({ model: "demo-chat", stream: true, messages: [{ role: "user", content: "tell me about gateways" }] })) {
      if (c.choices[0]?.delta.content) chunks++;
      text += c.choices[0]?.delta.content ?? "";
    }
    expect(text).toBe(r.choices[0]!.message.content);
    expect(chunks).toBe(r.usage!.completion_tokens);
    expect((await oa.responses.create({ model: "demo-chat", input: "hi" })).output_text).toContain("demo model");
    const am = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    expect((await am.messages.create({ model: "demo-chat", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })).content[0]).toMatchObject({ type: "text" });
    const g = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
    expect((await g.models.generateContent({ model: "demo-chat", contents: "hi" })).text).toContain("demo model");
  });

  it("a converted call is charged exactly and reports its cost and the balance", async () => {
    anthropic.reset({ usage: { input: 20, output: 30 } });
    const before = await balanceUsd(server, email);
    const oa = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { data, response } = await oa.chat.completions.create({ model: "chat-an", messages: [{ role: "user", content: "x".repeat(100) }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello from the fake upstream!");
    expect(anthropic.generationRequests()[0]!.body).toMatchObject({ model: "claude-fake", max_tokens: 100 });
    expect(response.headers.get("x-gateway-cost-usd")).toBe("0.00008");
    const after = await balanceUsd(server, email);
    expect(Math.round((before - after) * 1e6)).toBe(80);
    expect(response.headers.get("x-gateway-balance-usd")).toBe(formatUsd(Math.round(after * 1e6)));
  });

  it("serves count_tokens as an estimate, x-api-key or Bearer, and 404 for stored responses", async () => {
    const am = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const n = await am.messages.countTokens({ model: "demo-chat", messages: [{ role: "user", content: "count these five words" }] });
    expect(n.input_tokens).toBeGreaterThan(4);
    const bearer = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "demo-chat", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(bearer.status).toBe(200);
    const missing = await fetch(`${server.url}/v1/responses/resp_123`, { headers: { authorization: `Bearer ${key}` } });
    expect(missing.status).toBe(404);
    const unknown = await fetch(`${server.url}/v1beta/models/nope:generateContent?key=${key}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ contents: [{ parts: [{ text: "x" }] }] }) });
    expect(unknown.status).toBe(404);
    // Google's own error shape; the spec's code rides in the ErrorInfo detail.
    expect(((await unknown.json()) as any).error).toMatchObject({ code: 404, status: "NOT_FOUND", details: [{ reason: "model_not_found" }] });
  });

  it("raw SSE over curl-like fetch: data-only chunks ending in [DONE], one event per write", async () => {
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-chat", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.headers.get("content-type")).toContain("text/event-stream");
    const text = await r.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.every((e) => e.startsWith("data: "))).toBe(true);
    expect(events.at(-1)).toBe("data: [DONE]");
  });

  it("402 with no upstream call when the balance cannot cover the hold", async () => {
    const poor = await createAccount(server, { usd: 0.00001 });
    anthropic.reset();
    const am = new Anthropic({ apiKey: poor.key, baseURL: server.url, maxRetries: 0 });
    const err: any = await am.messages.create({ model: "chat-an", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.error).toMatchObject({ type: "error", error: { code: "insufficient_user_quota" } });
    expect(anthropic.generationRequests()).toHaveLength(0);
    expect(await balanceUsd(server, poor.email)).toBe(0.00001);
  });
});
