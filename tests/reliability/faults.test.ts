/**
 * Upstream faults and what they cost: an upstream that hangs, resets mid-stream, answers
 * malformed JSON or SSE, or fails once then succeeds. The client always gets the protocol's
 * error (never a hang, never a 500 of ours), nothing is charged for output that never came,
 * and the books stay exact after each case.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, type TestServer } from "../support/server";

let server: TestServer;
let upstream: FakeTextUpstream;
let key: string;
let email: string;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  server = await startTestServer({
    config: {
      upstreams: [{ id: "oa", protocol: "openai", baseUrl: upstream.baseUrl, apiKey: upstream.apiKey, timeoutMs: 1500 }],
      models: [{ id: "chat-f", kind: "text", upstream: "oa", upstreamModel: "gpt-fake", price: { inputPerMTok: 1, outputPerMTok: 2 }, defaultMaxTokens: 100 }],
    },
  });
  ({ key, email } = await createAccount(server, { usd: 1 }));
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 20_000 });
});
afterAll(async () => {
  await server?.dispose();
  await upstream?.close();
});

/** The balance once idle, after checking the books: ledger = balance, nothing held. */
async function books() {
  const b = await idleBooks(server, email);
  expect(b.ledger).toBe(b.balance);
  expect(b.held).toBe(0);
  expect(b.holds).toBe(0);
  return b.balance;
}

async function lastLog() {
  const [row] = await server.query<{ status: number; settlement: string; cost: string; output_tokens: number }>(
    "select status, settlement, cost_micro_usd as cost, output_tokens::int as output_tokens from request_logs order by id desc limit 1",
  );
  return row!;
}

const ask = () => ({ model: "chat-f", messages: [{ role: "user" as const, content: "tell me" }] });
const askStream = () => ({ ...ask(), stream: true as const });

describe("upstream faults", () => {
  it("an upstream that never answers: 504 upstream_timeout, nothing charged", async () => {
    const before = await books();
    upstream.reset({ hang: true });
    const started = Date.now();
    await expect(client.chat.completions.create(ask())).rejects.toMatchObject({ status: 504 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await books()).toBe(before);
  });

  it("a reset mid-stream: partial text, then the protocol's error event; only delivered tokens charged", async () => {
    const before = await books();
    // Paced, so the first events really reach the client before the connection drops.
    upstream.reset({ text: "one two three four five six seven eight nine ten", usage: { input: 10, output: 10 }, resetAfterEvents: 4, eventDelayMs: 50 });
    let text = "";
    let failed: unknown = null;
    try {
      for await (const chunk of await client.chat.completions.create(askStream())) text += chunk.choices[0]?.delta?.content ?? "";
    } catch (err) {
      failed = err;
    }
    expect(failed).not.toBeNull();
    expect(text.length).toBeGreaterThan(0);
    const after = await books();
    const log = await lastLog();
    expect(before - after).toBe(Number(log.cost));
    // Never more than the prompt (10 tokens × 1) plus the words that arrived (× 2).
    expect(Number(log.cost)).toBeLessThanOrEqual(10 + 2 * text.split(/\s+/).filter(Boolean).length + 2);
  });

  it("malformed JSON from the upstream: 502 upstream_error, nothing charged", async () => {
    const before = await books();
    upstream.reset({ malformed: "json" });
    await expect(client.chat.completions.create(ask())).rejects.toMatchObject({ status: 502 });
    expect(await books()).toBe(before);
  });

  it("malformed SSE from the upstream: the stream ends with an error, books exact", async () => {
    upstream.reset({ malformed: "json", text: "alpha beta gamma" });
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(askStream()),
    });
    const body = await r.text();
    expect(r.status === 502 || /"error"/.test(body)).toBe(true);
    expect(r.status).toBeLessThan(500 + 3); // 502 before the first byte, or an in-stream error event
    await books();
  });

  it("500 then 200: retried before the first byte, answered once, charged once", async () => {
    const before = await books();
    upstream.reset({ failTimes: 1, failStatus: 500, text: "recovered", usage: { input: 5, output: 1 } });
    const r = await client.chat.completions.create(ask());
    expect(r.choices[0]!.message.content).toBe("recovered");
    expect(upstream.generationRequests()).toHaveLength(2);
    const after = await books();
    expect(before - after).toBe(5 * 1 + 1 * 2);
  });

  // Issue 12 item 2: usage that is not a finite whole number used to throw before the
  // settlement (500, the lease held for the life of the process) or fail it (32-bit columns).
  const HOSTILE: Array<[string, Record<string, unknown>, number | null]> = [
    ["numeric strings", { prompt_tokens: "5", completion_tokens: "1" }, 5 * 1 + 1 * 2],
    ["1e999", { prompt_tokens: "__raw:1e999", completion_tokens: 1 }, null],
    ['"many"', { prompt_tokens: 5, completion_tokens: "many" }, null],
    ["7.5", { prompt_tokens: 7.5, completion_tokens: 1 }, null],
    ["negative", { prompt_tokens: -5, completion_tokens: 1 }, null],
    ["above 2³¹ (clamped to the hold)", { prompt_tokens: 2 ** 31 + 5, completion_tokens: 1 }, null],
  ];
  it.each(HOSTILE.flatMap(([name, usage, cost]) => [false, true].map((stream) => [name, usage, cost, stream] as const)))(
    "upstream usage %s %j (exact cost %s, stream %s): 200, charged, logged, nothing held",
    async (_name, usage, cost, stream) => {
      const before = await books();
      upstream.reset({ text: "fine", rawUsage: { ...usage, total_tokens: 0 } });
      if (stream) {
        let text = "";
        for await (const c of await client.chat.completions.create({ ...askStream(), stream_options: { include_usage: true } })) text += c.choices[0]?.delta.content ?? "";
        expect(text).toBe("fine");
      } else expect((await client.chat.completions.create(ask())).choices[0]!.message.content).toBe("fine");
      const after = await books();
      const log = await lastLog();
      expect(log.status).toBe(200);
      expect(Number(log.cost)).toBe(before - after);
      if (cost !== null) expect(before - after).toBe(cost);
      else expect(before - after).toBeGreaterThan(0);
    },
  );
});
