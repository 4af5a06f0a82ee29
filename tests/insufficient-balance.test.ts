/**
 * A 402 that helps (as OpenRouter's does): with a request the balance cannot cover, the answer
 * says what the request could cost, what is available and the largest output cap that fits —
 * and a request with that cap is served.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let up: FakeTextUpstream;
let key: string;

beforeAll(async () => {
  up = await startFakeOpenAI();
  server = await startTestServer({
    config: {
      upstreams: [{ id: "oa", protocol: "openai", baseUrl: up.baseUrl, apiKey: OPENAI_FAKE_KEY }],
      // 10 USD per million output tokens: a 100,000-token default cap holds 1 USD.
      models: [{ id: "big", kind: "text", upstream: "oa", upstreamModel: "gpt-fake", price: { inputPerMTok: 1, outputPerMTok: 10 }, maxOutputTokens: 100_000 }],
    },
  });
  ({ key } = await createAccount(server, { usd: 0.05 }));
});
afterAll(async () => {
  await server?.dispose();
  await up?.close();
});

describe("402 insufficient balance", () => {
  it("names the possible cost, the balance and the cap that fits; that cap is then served", async () => {
    const oa = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await oa.chat.completions.create({ model: "big", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.error.code).toBe("insufficient_user_quota");
    const m = /could cost up to \$([\d.]+) .*and \$([\d.]+) is available\. Set max_completion_tokens to at most (\d+)/.exec(err.error.message);
    expect(m, err.error.message).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(1);
    expect(Number(m![2])).toBeCloseTo(0.05, 6);
    const cap = Number(m![3]);
    expect(cap).toBeGreaterThan(4000);
    expect(cap).toBeLessThan(5000);
    expect(up.generationRequests()).toHaveLength(0);
    const ok = await oa.chat.completions.create({ model: "big", max_completion_tokens: cap, messages: [{ role: "user", content: "hi" }] });
    expect(ok.choices[0]!.message.content).toBe("Hello from the fake upstream!");
  });

  it("speaks each protocol's own field name", async () => {
    const an = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const err = await an.messages.create({ model: "big", max_tokens: 20_000, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.error.error.message).toMatch(/Set max_tokens to at most \d+/);
  });
});
