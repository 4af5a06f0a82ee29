/**
 * Retries and failover against fake upstreams that answer 429/500, hang, reset or send garbage:
 * retried with backoff before the first byte, failed over in catalog order, 504 on timeouts,
 * the upstream's own 4xx passed back without its URL, and nothing charged when nothing came out.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "./fakes/gemini-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";
import { tokensAsNumbers } from "./support/log-rows";
import { textGatewayConfig } from "./text-config";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini" | "backup", FakeTextUpstream>;
let email: string;
let key: string;
let openai: OpenAI;

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini(), backup: await startFakeOpenAI() };
  const urls = (oa: string) => ({
    openai: oa,
    anthropic: fakes.anthropic.baseUrl,
    gemini: fakes.gemini.baseUrl,
    openaiKey: OPENAI_FAKE_KEY,
    anthropicKey: ANTHROPIC_FAKE_KEY,
    geminiKey: GEMINI_FAKE_KEY,
  });
  server = await startTestServer({ config: textGatewayConfig(urls(fakes.openai.baseUrl), { timeoutMs: 700, backup: urls(fakes.backup.baseUrl) }) });
  ({ email, key } = await createAccount(server, { usd: 1 }));
  openai = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

const ask = (model: string, stream = false) =>
  stream
    ? openai.chat.completions.create({ model, stream: true, messages: [{ role: "user", content: "Hi" }] })
    : openai.chat.completions.create({ model, messages: [{ role: "user", content: "Hi" }] });

async function lastLog(): Promise<Record<string, any> | undefined> {
  if (!usesPostgres()) return undefined;
  await new Promise((r) => setTimeout(r, 100));
  const rows = await server.query("select * from request_logs order by id desc limit 1");
  return rows[0] && tokensAsNumbers(rows[0]);
}

describe("retries before the first byte", () => {
  it("retries 500 then succeeds on the same upstream, charging once", async () => {
    fakes.openai.reset({ failTimes: 2, failStatus: 500 });
    const before = await balanceUsd(server, email);
    const r = (await ask("chat-openai")) as OpenAI.ChatCompletion;
    expect(r.choices[0]!.message.content).toBe("Hello from the fake upstream!");
    expect(fakes.openai.generationRequests()).toHaveLength(3);
    expect(Math.round((before - (await balanceUsd(server, email))) * 1e6)).toBe(11 + 10);
  });

  it("retries 429 (honouring a short Retry-After) on a stream before anything was sent", async () => {
    fakes.openai.reset({ failTimes: 1, failStatus: 429, retryAfter: 0 });
    let text = "";
    for await (const c of (await ask("chat-openai", true)) as AsyncIterable<OpenAI.ChatCompletionChunk>) text += c.choices[0]?.delta.content ?? "";
    expect(text).toBe("Hello from the fake upstream!");
    expect(fakes.openai.generationRequests()).toHaveLength(2);
  });

  it("fails over to the next upstream in catalog order after retries are spent", async () => {
    fakes.anthropic.reset({ failTimes: 100, failStatus: 429 });
    const r = (await ask("chat-failover")) as OpenAI.ChatCompletion;
    expect(r.choices[0]!.message.content).toBe("Hello from the fake upstream!");
    expect(fakes.anthropic.generationRequests()).toHaveLength(3);
    expect(fakes.backup.generationRequests()).toHaveLength(1);
    expect(fakes.backup.generationRequests()[0]!.body.model).toBe("gpt-backup");
    const log = await lastLog();
    if (log) expect(log).toMatchObject({ upstream_id: "oa2", upstream_protocol: "openai", settlement: "completed" });
  });

  it("answers 502 upstream_error when every upstream keeps failing, and charges nothing", async () => {
    fakes.anthropic.reset({ failTimes: 100, failStatus: 500 });
    fakes.backup.reset({ failTimes: 100, failStatus: 502 });
    const before = await balanceUsd(server, email);
    const err: any = await ask("chat-failover").catch((e) => e);
    expect(err.status).toBe(502);
    expect(err.error).toMatchObject({ type: "upstream_error", code: "upstream_error" });
    expect(fakes.anthropic.generationRequests()).toHaveLength(3);
    expect(fakes.backup.generationRequests()).toHaveLength(3);
    expect(await balanceUsd(server, email)).toBe(before);
    const log = await lastLog();
    if (log) expect(log).toMatchObject({ status: 502, settlement: "upstream_error", cost_micro_usd: "0" });
  });

  it("answers 504 upstream_timeout when the upstream hangs, after retrying", async () => {
    fakes.gemini.reset({ hang: true });
    const before = await balanceUsd(server, email);
    const err: any = await ask("chat-gemini").catch((e) => e);
    expect(err.status).toBe(504);
    expect(err.code).toBe("upstream_timeout");
    expect(fakes.gemini.generationRequests()).toHaveLength(3);
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("retries a stream reset before its first event and an answer that is not JSON", async () => {
    fakes.openai.reset({ resetAfterEvents: 0 });
    const err: any = await ask("chat-openai", true).catch((e) => e);
    expect(err.status).toBe(502);
    expect(fakes.openai.generationRequests()).toHaveLength(3);
    fakes.gemini.reset({ malformed: "json" });
    const err2: any = await ask("chat-gemini").catch((e) => e);
    expect(err2.status).toBe(502);
    expect(fakes.gemini.generationRequests()).toHaveLength(3);
  });
});

describe("failures after the first byte and upstream 4xx", () => {
  it("a reset mid-stream ends with the protocol's error event and bills what was delivered", async () => {
    fakes.anthropic.reset({ text: "one two three four five six seven eight", resetAfterEvents: 6, eventDelayMs: 20 });
    const client = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    let text = "";
    const err = await (async () => {
      const s = await client.messages.create({ model: "chat-anthropic", max_tokens: 50, stream: true, messages: [{ role: "user", content: "Hi" }] });
      for await (const ev of s) if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
    })().catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(text).toBe("one two three");
    const log = await lastLog();
    if (log) {
      expect(log.settlement).toBe("upstream_error");
      expect(log.output_tokens).toBeGreaterThan(0);
      expect(Number(log.cost_micro_usd)).toBeGreaterThan(0);
    }
  });

  it("a malformed event mid-stream is the protocol's in-stream error for chat completions", async () => {
    fakes.openai.reset({ malformed: "json" });
    const err = await (async () => {
      for await (const _ of (await ask("chat-openai", true)) as AsyncIterable<unknown>) void _;
    })().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    // The first event had reached the client: no retry after that.
    expect(fakes.openai.generationRequests()).toHaveLength(1);
  });

  it("an upstream 400 comes back with its status and message, not its URL or credentials, not retried", async () => {
    fakes.openai.reset({ errorStatus: 400, errorMessage: `context too long for ${fakes.openai.baseUrl} (key ${OPENAI_FAKE_KEY})` });
    const err: any = await ask("chat-openai").catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.error.type).toBe("upstream_error");
    expect(err.message).toContain("context too long");
    expect(err.message).not.toContain("127.0.0.1");
    expect(err.message).not.toContain(OPENAI_FAKE_KEY);
    expect(fakes.openai.generationRequests()).toHaveLength(1);
  });

  it("an upstream refusing the gateway's credentials is a 502, not the client's 401", async () => {
    fakes.openai.reset({ errorStatus: 401 });
    const err: any = await ask("chat-openai").catch((e) => e);
    expect(err.status).toBe(502);
  });
});
