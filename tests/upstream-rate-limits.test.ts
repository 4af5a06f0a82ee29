/**
 * An upstream that keeps refusing (issue 35): after the gateway's own retries, a rate limit is
 * a 429 and an overload a 503 (Messages: 529 `overloaded_error`) in the client's own shape, with
 * `Retry-After` from the upstream's hint (`retry-after`, `retry-after-ms`, Gemini's RetryInfo) —
 * on every protocol, same-protocol passthrough included — and nothing is charged. The gateway's
 * retries wait a short hint and skip a long one; the official SDKs then back off as told.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses } from "./fakes/openai-responses-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream, TextScript } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { textFakeUrls, textGatewayConfig } from "./text-config";

type Up = "openai" | "anthropic" | "gemini" | "responses";
let server: TestServer;
let key: string;
let email: string;
const fakes = {} as Record<Up, FakeTextUpstream>;

beforeAll(async () => {
  [fakes.openai, fakes.anthropic, fakes.gemini, fakes.responses] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGemini(), startFakeOpenAIResponses()]);
  // chat-failover: the Anthropic entry first, then a second OpenAI one (here the same fake).
  const config = textGatewayConfig(textFakeUrls(fakes), { backup: textFakeUrls(fakes) });
  config.upstreams.push({ id: "rs", protocol: "openai-responses", baseUrl: fakes.responses.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 });
  config.models.push({ ...config.models.find((m) => m.id === "chat-openai")!, id: "chat-responses", upstream: "rs" });
  // Health accounting is another test's subject: circuits off, so every case reaches its upstream.
  server = await startTestServer({ config, env: { UPSTREAM_HEALTH_ERROR_PERCENT: "0" } });
  ({ key, email } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all(Object.values(fakes).map((f) => f?.close()));
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

interface Fault {
  name: string;
  up: Up;
  script: Partial<TextScript>;
  /** What the gateway answers (Messages routes: `messagesStatus`). */
  status: number;
  messagesStatus: number;
  retryAfter: string;
  /** Attempts on the upstream: a hint within the gateway's longest wait (4 s) is waited out twice. */
  calls: number;
}

const FAULTS: Fault[] = [
  { name: "429 with retry-after", up: "openai", script: { failStatus: 429, retryAfter: 1 }, status: 429, messagesStatus: 429, retryAfter: "1", calls: 3 },
  { name: "429 with Gemini's RetryInfo", up: "gemini", script: { failStatus: 429, retryDelay: "30s" }, status: 429, messagesStatus: 429, retryAfter: "30", calls: 1 },
  { name: "529 with retry-after-ms", up: "anthropic", script: { failStatus: 529, retryAfterMs: 200 }, status: 503, messagesStatus: 529, retryAfter: "1", calls: 3 },
  { name: "503 with a long retry-after", up: "responses", script: { failStatus: 503, retryAfter: 20 }, status: 503, messagesStatus: 529, retryAfter: "20", calls: 1 },
];

type Client = "chat" | "responses" | "messages" | "gemini";
const CLIENTS: Client[] = ["chat", "responses", "messages", "gemini"];

async function ask(client: Client, model: string): Promise<Response> {
  const json = { "content-type": "application/json" };
  if (client === "gemini")
    return fetch(`${server.url}/v1beta/models/${model}:generateContent`, { method: "POST", headers: { ...json, "x-goog-api-key": key }, body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }) });
  const [path, body] =
    client === "chat"
      ? ["/v1/chat/completions", { model, messages: [{ role: "user", content: "Hi" }] }]
      : client === "responses"
        ? ["/v1/responses", { model, input: "Hi", store: false }]
        : ["/v1/messages", { model, max_tokens: 20, messages: [{ role: "user", content: "Hi" }] }];
  return fetch(`${server.url}${path}`, { method: "POST", headers: { ...json, authorization: `Bearer ${key}`, "anthropic-version": "2023-06-01" }, body: JSON.stringify(body) });
}

describe.each(CLIENTS)("%s client", (client) => {
  it.each(FAULTS)("$name", async (f) => {
    const before = await idleBooks(server, email);
    fakes[f.up].reset({ ...f.script, failTimes: 100 });
    const started = performance.now();
    const r = await ask(client, `chat-${f.up}`);
    const elapsed = performance.now() - started;
    const body = (await r.json()) as any;
    const status = client === "messages" ? f.messagesStatus : f.status;
    expect(r.status).toBe(status);
    expect(r.headers.get("retry-after")).toBe(f.retryAfter);
    expect(r.headers.get("x-should-retry")).toBeNull();
    expect(fakes[f.up].generationRequests()).toHaveLength(f.calls);
    if (f.script.retryAfter === 1) expect(elapsed).toBeGreaterThanOrEqual(1900); // two waits of the upstream's 1 s
    if (f.calls === 1) expect(elapsed).toBeLessThan(2000); // a long hint is not waited out

    const limited = f.status === 429;
    if (client === "messages") expect(body).toMatchObject({ type: "error", error: { type: limited ? "rate_limit_error" : "overloaded_error" } });
    else if (client === "gemini") {
      expect(body.error).toMatchObject({ code: status, status: limited ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE" });
      expect(body.error.details).toContainEqual({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${f.retryAfter}s` });
    } else expect(body.error).toMatchObject(limited ? { type: "rate_limit_error", code: "rate_limit_exceeded" } : { type: "upstream_error", code: "upstream_overloaded" });

    // A refused request costs nothing: no charge, nothing left held.
    expect(await idleBooks(server, email)).toEqual(before);
  });
});

describe("backing off", () => {
  it("OpenAI SDK: a 429 with Retry-After: 1 is waited out by the SDK, whose retry is served and charged once", async () => {
    // The gateway tries 3 times (two 1 s waits) and answers 429 Retry-After: 1; the SDK waits
    // 1 s and retries; the fake's 4th answer succeeds.
    fakes.openai.reset({ failStatus: 429, retryAfter: 1, failTimes: 3 });
    const before = await idleBooks(server, email);
    const openai = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 1 });
    const started = performance.now();
    const r = await openai.chat.completions.create({ model: "chat-openai", messages: [{ role: "user", content: "Hi" }] });
    expect(r.choices[0]!.message.content).toBe("Hello from the fake upstream!");
    expect(performance.now() - started).toBeGreaterThanOrEqual(2900);
    expect(fakes.openai.generationRequests()).toHaveLength(4);
    const after = await idleBooks(server, email);
    expect(before.balance - after.balance).toBe(11 + 2 * 5);
    expect(before.ledger - after.ledger).toBe(11 + 2 * 5);
  });

  it("Anthropic SDK: a 529 overloaded_error with Retry-After is waited out by the SDK, whose retry is served", async () => {
    fakes.anthropic.reset({ failStatus: 529, retryAfter: 1, failTimes: 3 });
    const anthropic = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 1 });
    const started = performance.now();
    const r = await anthropic.messages.create({ model: "chat-anthropic", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] });
    expect(r.content[0]).toMatchObject({ type: "text", text: "Hello from the fake upstream!" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(2900);
    expect(fakes.anthropic.generationRequests()).toHaveLength(4);
  });

  it("quota exhausted on one entry fails over to the next at once, without waiting its hint", async () => {
    fakes.anthropic.reset({ failStatus: 429, retryAfter: 3600, failTimes: 100 });
    const started = performance.now();
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "chat-failover", messages: [{ role: "user", content: "quota" }] }),
    });
    expect(r.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(fakes.anthropic.generationRequests()).toHaveLength(1);
    expect(fakes.openai.generationRequests()).toHaveLength(1);
  });
});
