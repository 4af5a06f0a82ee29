/**
 * Every inbound protocol × every upstream protocol, driven through the official SDKs against
 * handleText on a small in-test host (no database): plain, streamed and tool calling, asserting
 * what the client got and what the fake upstream received.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "../../../tests/fakes/anthropic-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "../../../tests/fakes/gemini-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "../../../tests/fakes/openai-upstream";
import type { FakeTextUpstream } from "../../../tests/fakes/text-fake-core";
import type { UpstreamProtocol } from "../../../db/schema";
import type { ModelRoute } from "../model-route";
import { startTestHost, type TestHost } from "../../../tests/fakes/text-test-host";
import { defineTextMatrix } from "../../../tests/text-matrix-cases";

const PRICE = { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 };
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
let host: TestHost;

function route(model: string, protocol: UpstreamProtocol, baseUrl: string, apiKey: string | null): ModelRoute {
  return { rowId: `row-${model}`, modelId: model, kind: "text", family: null, ownedBy: "test", strict: false, priority: 0, weight: 1, upstreamModel: `up-${model}`, price: PRICE, defaultMaxTokens: 1000, upstream: { id: `u-${protocol}`, protocol, baseUrl, apiKey, timeoutMs: 5000 } };
}

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  host = await startTestHost({
    "m-openai": [route("m-openai", "openai", fakes.openai.baseUrl, OPENAI_FAKE_KEY)],
    "m-anthropic": [route("m-anthropic", "anthropic", fakes.anthropic.baseUrl, ANTHROPIC_FAKE_KEY)],
    "m-gemini": [route("m-gemini", "gemini", fakes.gemini.baseUrl, GEMINI_FAKE_KEY)],
  });
});
afterAll(async () => {
  await host?.close();
  for (const f of Object.values(fakes ?? {})) await f.close();
});

defineTextMatrix(() => ({ url: host.url, key: "sk-client", fakes, model: (up) => `m-${up}`, upstreamModel: (up) => `up-m-${up}`, price: { input: 1, output: 2 } }));

const clients = () => ({
  openai: new OpenAI({ apiKey: "sk-client", baseURL: `${host.url}/v1`, maxRetries: 0 }),
  anthropic: new Anthropic({ apiKey: "sk-client", baseURL: host.url, maxRetries: 0 }),
  google: new GoogleGenAI({ apiKey: "sk-client", httpOptions: { baseUrl: host.url } }),
});

describe("errors and billing on the host", () => {
  it("unknown model → 404 model_not_found on every protocol", async () => {
    const c = clients();
    await expect(c.openai.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    await expect(c.anthropic.messages.create({ model: "nope", max_tokens: 5, messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 404 });
    await expect(c.google.models.generateContent({ model: "nope", contents: "x" })).rejects.toMatchObject({ status: 404 });
  });

  it("temperature above 1 to an anthropic upstream → 400 naming the field, no upstream call", async () => {
    fakes.anthropic.reset();
    const err: any = await clients().openai.chat.completions.create({ model: "m-anthropic", temperature: 1.5, messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.message).toContain("temperature");
    expect(fakes.anthropic.generationRequests()).toHaveLength(0);
  });

  it("n > 1 reaches an OpenAI upstream (holding the cap per choice) and is a 400 on a converted route; previous_response_id → 400 here", async () => {
    const c = clients();
    fakes.openai.reset();
    await c.openai.chat.completions.create({ model: "m-openai", n: 1, max_completion_tokens: 10, messages: [{ role: "user", content: "x" }] });
    await c.openai.chat.completions.create({ model: "m-openai", n: 2, max_completion_tokens: 10, messages: [{ role: "user", content: "x" }] });
    expect(fakes.openai.generationRequests()[1]!.body).toMatchObject({ n: 2 });
    // The second choice holds its own 10 output tokens at 2 µUSD each.
    expect(host.holds.at(-1)! - host.holds.at(-2)!).toBe(20);
    const err: any = await c.openai.chat.completions.create({ model: "m-anthropic", n: 2, messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.message).toContain("n:");
    await expect(c.openai.responses.create({ model: "m-openai", input: "x", previous_response_id: "resp_1" })).rejects.toMatchObject({ status: 400 });
  });

  it("same protocol passes unknown fields through; a converted route refuses what it cannot carry", async () => {
    fakes.anthropic.reset();
    const body = {
      model: "m-anthropic",
      max_tokens: 50,
      thinking: { type: "enabled", budget_tokens: 1024 },
      custom_field: { x: 1 },
      // A document in Anthropic's own file store: only Anthropic can read it.
      messages: [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: "file_011" } }, { type: "text", text: "hi" }] }],
    };
    const ok = await fetch(`${host.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(ok.status).toBe(200);
    expect(fakes.anthropic.generationRequests()[0]!.body).toMatchObject({ model: "up-m-anthropic", thinking: { type: "enabled", budget_tokens: 1024 }, custom_field: { x: 1 } });
    fakes.openai.reset();
    const bad = await fetch(`${host.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...body, model: "m-openai" }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toMatch(/^messages\[0\]\.content\[0\]:/);
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });

  it("chat completions passthrough keeps unknown fields and hides the usage chunk the client did not ask for", async () => {
    fakes.openai.reset();
    const r = await fetch(`${host.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m-openai", stream: true, logprobs: true, messages: [{ role: "user", content: "hi" }] }),
    });
    const text = await r.text();
    const sent = fakes.openai.generationRequests()[0]!.body;
    expect(sent).toMatchObject({ model: "up-m-openai", logprobs: true, stream_options: { include_usage: true }, max_completion_tokens: 1000 });
    expect(text).not.toContain('"usage"');
    expect(text).toContain("system_fingerprint");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("upstream 400 comes back with its status and message, never its URL", async () => {
    fakes.openai.reset({ errorStatus: 400, errorMessage: `bad thing at ${fakes.openai.baseUrl}` });
    const err: any = await clients().openai.chat.completions.create({ model: "m-openai", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.message).toContain("bad thing");
    expect(err.message).not.toContain("127.0.0.1");
    expect(err.error.type).toBe("upstream_error");
  });

  it("charges exactly price × usage and releases the rest", async () => {
    fakes.gemini.reset({ usage: { input: 1000, output: 333 } });
    host.settlements.length = 0;
    const before = host.balance.available;
    await clients().openai.chat.completions.create({ model: "m-gemini", messages: [{ role: "user", content: "x" }] });
    const s = host.settlements[0]!;
    expect(s.log.settlement).toBe("completed");
    expect(s.costMicroUsd).toBe(1000 * 1 + 333 * 2);
    expect(host.balance.available).toBe(before - s.costMicroUsd);
  });

  it("402 before any upstream call when the hold does not fit", async () => {
    fakes.openai.reset();
    const saved = host.balance.available;
    host.balance.available = 10;
    const err: any = await clients().openai.chat.completions.create({ model: "m-openai", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    host.balance.available = saved;
    expect(err.status).toBe(402);
    expect(err.code).toBe("insufficient_user_quota");
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });
});
