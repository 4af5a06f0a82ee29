/**
 * Aliases and limits as a user meets them: Claude Code's dated model ids and a `gemini-*-flash`
 * family reaching real models through wildcard aliases from the official SDKs, charged at the
 * serving model's price (row and headers say which served); failover to an alias's second target
 * before the first byte; the context-window fallback; tokens-per-minute under 20 parallel
 * requests (no overshoot, the headers OpenAI clients read) and concurrent streams.
 */
import Anthropic from "@anthropic-ai/sdk";
import net from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { adminOk, createAccount, createKey } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let an: FakeTextUpstream;
let oa: FakeTextUpstream;
const servers: TestServer[] = [];

function config() {
  const text = (id: string, upstream: string, input: number, output: number, extra: Record<string, unknown> = {}) => ({
    id,
    kind: "text",
    upstream,
    upstreamModel: `${id}-up`,
    price: { inputPerMTok: input, outputPerMTok: output },
    maxOutputTokens: 100,
    ...extra,
  });
  return {
    upstreams: [
      { id: "an", protocol: "anthropic", baseUrl: an.baseUrl, apiKey: ANTHROPIC_FAKE_KEY, timeoutMs: 3000 },
      { id: "oa", protocol: "openai", baseUrl: oa.baseUrl, apiKey: OPENAI_FAKE_KEY, timeoutMs: 3000 },
    ],
    models: [
      text("sonnet-real", "an", 3, 15, { contextWindow: 200_000 }),
      text("haiku-real", "oa", 1, 5, { contextWindow: 100_000 }),
      text("small-ctx", "oa", 1, 2, { contextWindow: 1000 }),
      text("large-ctx", "an", 2, 4, { contextWindow: 100_000 }),
    ],
    aliases: [
      { id: "claude-sonnet-4-5-*", targets: ["sonnet-real", "haiku-real"] },
      { id: "gemini-*-flash", targets: ["haiku-real"] },
      { id: "fast", targets: ["haiku-real", "sonnet-real"] },
      { id: "long", targets: ["small-ctx", "large-ctx"], contextFallback: true },
    ],
  };
}

async function start(env: Record<string, string> = {}, shareWith?: TestServer) {
  const s = await startTestServer({ config: config(), env, shareWith });
  servers.push(s);
  return s;
}

beforeAll(async () => {
  [an, oa] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
});
afterAll(async () => {
  for (const s of servers.reverse()) await s.dispose();
  await Promise.all([an?.close(), oa?.close()]);
});

async function rowOf(s: TestServer, requestId: string | null) {
  for (let i = 0; i < 50; i++) {
    const [row] = await s.query<{ model: string; served_model: string | null; upstream_id: string; cost_micro_usd: string }>(
      "select model, served_model, upstream_id, cost_micro_usd from request_logs where request_id = $1",
      [requestId],
    );
    if (row) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no request-log row for ${requestId}`);
}

describe("aliases", () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await start();
    ({ key } = await createAccount(s, { usd: 5 }));
  });

  it("a dated Claude id reaches its model through a wildcard (Anthropic SDK), at that model's price", async () => {
    an.reset({ usage: { input: 11, output: 5 } });
    const client = new Anthropic({ apiKey: key, baseURL: s.url, maxRetries: 0 });
    const { data, response } = await client.messages
      .create({ model: "claude-sonnet-4-5-20250929", max_tokens: 50, messages: [{ role: "user", content: "Say hi" }] })
      .withResponse();
    expect(data.content[0]).toMatchObject({ type: "text" });
    expect(data.model).toBe("claude-sonnet-4-5-20250929");
    expect(response.headers.get("x-gateway-model")).toBe("sonnet-real");
    // 11 × $3/M + 5 × $15/M = 108 micro-USD.
    expect(response.headers.get("x-gateway-cost-usd")).toBe("0.000108");
    expect(an.generationRequests().at(-1)!.body.model).toBe("sonnet-real-up");
    const row = await rowOf(s, response.headers.get("x-request-id"));
    expect(row).toMatchObject({ model: "claude-sonnet-4-5-20250929", served_model: "sonnet-real", upstream_id: "an" });
    expect(Number(row.cost_micro_usd)).toBe(108);
  });

  it("a `gemini-*-flash` family id reaches its model (OpenAI SDK), charged at that model's price", async () => {
    oa.reset({ usage: { input: 11, output: 5 } });
    const client = new OpenAI({ apiKey: key, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Say hi" }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBeTruthy();
    expect(response.headers.get("x-gateway-model")).toBe("haiku-real");
    const row = await rowOf(s, response.headers.get("x-request-id"));
    expect(row).toMatchObject({ model: "gemini-2.5-flash", served_model: "haiku-real" });
    expect(Number(row.cost_micro_usd)).toBe(11 * 1 + 5 * 5);
  });

  it("an exact model id wins over a pattern, and an unmatched id is still model_not_found", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${s.url}/v1`, maxRetries: 0 });
    oa.reset();
    const { response } = await client.chat.completions.create({ model: "haiku-real", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(response.headers.get("x-gateway-model")).toBe("haiku-real");
    await expect(client.chat.completions.create({ model: "gemini-2.5-pro", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 404 });
  });

  it("fails over to the alias's second target before the first byte; the row and headers say which served", async () => {
    an.reset({ failTimes: 100, failStatus: 503 });
    oa.reset({ usage: { input: 11, output: 5 } });
    const client = new OpenAI({ apiKey: key, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions
      .create({ model: "claude-sonnet-4-5-20250929", stream: true, messages: [{ role: "user", content: "Say hi" }] })
      .withResponse();
    let text = "";
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Hello from the fake upstream!");
    expect(stream.response.headers.get("x-gateway-model")).toBe("haiku-real");
    expect(an.generationRequests().length).toBeGreaterThan(0);
    const row = await rowOf(s, stream.response.headers.get("x-request-id"));
    expect(row).toMatchObject({ served_model: "haiku-real", upstream_id: "oa" });
    expect(Number(row.cost_micro_usd)).toBe(11 * 1 + 5 * 5);
    an.reset();
  });

  it("context-window fallback: a prompt too long for the first target goes to the next", async () => {
    an.reset({ usage: { input: 400, output: 5 } });
    oa.reset({ usage: { input: 3, output: 5 } });
    const client = new OpenAI({ apiKey: key, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const short = await client.chat.completions.create({ model: "long", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(short.response.headers.get("x-gateway-model")).toBe("small-ctx");
    const long = await client.chat.completions
      .create({ model: "long", max_tokens: 10, messages: [{ role: "user", content: "word ".repeat(3000) }] })
      .withResponse();
    expect(long.response.headers.get("x-gateway-model")).toBe("large-ctx");
    const row = await rowOf(s, long.response.headers.get("x-request-id"));
    expect(row).toMatchObject({ model: "long", served_model: "large-ctx" });
    expect(Number(row.cost_micro_usd)).toBe(400 * 2 + 5 * 4);
  });

  it("named aliases are listed (OpenAI and Anthropic lists) with their first target's sizing and prices; patterns are not", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(["fast", "long", "haiku-real"]));
    expect(ids.some((id) => id.includes("*"))).toBe(false);
    const fast = (await client.models.retrieve("fast").catch(() => null)) as unknown as Record<string, unknown> | null;
    const listed = (await (await fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()).data as Record<string, unknown>[];
    const entry = listed.find((m) => m.id === "fast")!;
    expect(entry).toMatchObject({ context_window: 100_000, max_output_tokens: 100, alias_of: ["haiku-real", "sonnet-real"], pricing: { input_per_mtok: 1, output_per_mtok: 5 } });
    if (fast) expect(fast.id).toBe("fast");
    const anth = new Anthropic({ apiKey: key, baseURL: s.url, maxRetries: 0 });
    const anthIds: string[] = [];
    for await (const m of anth.models.list()) anthIds.push(m.id);
    expect(anthIds).toContain("fast");
  });
});

async function redisUp(): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(6379, "127.0.0.1", () => {
      sock.end();
      resolve(true);
    });
    sock.on("error", () => resolve(false));
  });
}

const chat = (s: TestServer, key: string, body: Record<string, unknown>) =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "haiku-real", max_tokens: 50, messages: [{ role: "user", content: "Say hi" }], ...body }),
  });

for (const store of ["memory", "redis"] as const) {
  describe(`limits (${store})`, () => {
    let s: TestServer;
    let email: string;
    beforeAll(async () => {
      if (store === "redis" && !(await redisUp())) throw new Error("Redis must run on 127.0.0.1:6379 for this test (.ci/run starts it)");
      s = await start(store === "redis" ? { REDIS_URL: "redis://127.0.0.1:6379/0" } : {});
      ({ email } = await createAccount(s, { usd: 5 }));
    });

    it("tokens per minute: of 20 parallel requests only what fits passes, with the headers; usage is settled back", async () => {
      oa.reset({ usage: { input: 3, output: 5 } });
      // One request's reservation (prompt bound + max_tokens), read off a roomy key's headers.
      const probeKey = await createKey(s, email, "--tpm", "1000000");
      const probe = await chat(s, probeKey, {});
      expect(probe.status).toBe(200);
      const reservation = 1_000_000 - Number(probe.headers.get("x-ratelimit-remaining-tokens"));
      expect(reservation).toBeGreaterThan(50);
      expect(probe.headers.get("x-ratelimit-limit-tokens")).toBe("1000000");

      const limit = reservation * 5 + Math.floor(reservation / 2);
      const key = await createKey(s, email, "--tpm", String(limit));
      // Every admission before any settlement (slow answers), all in one minute's window.
      oa.reset({ usage: { input: 3, output: 5 }, responseDelayMs: 1500 });
      if (new Date().getSeconds() >= 50) await new Promise((r) => setTimeout(r, (61 - new Date().getSeconds()) * 1000));
      const answers = await Promise.all(Array.from({ length: 20 }, () => chat(s, key, {})));
      const ok = answers.filter((r) => r.status === 200);
      const limited = answers.filter((r) => r.status === 429);
      expect(ok.length).toBe(5);
      expect(limited.length).toBe(15);
      const refused = limited[0]!;
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("x-ratelimit-limit-tokens")).toBe(String(limit));
      expect(Number(refused.headers.get("x-ratelimit-remaining-tokens"))).toBeLessThan(reservation);
      expect(refused.headers.get("x-ratelimit-reset-tokens")).toMatch(/^\d+s$/);
      expect((await refused.json()).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
      // Settled to real usage (8 tokens each): the window has room again.
      oa.reset({ usage: { input: 3, output: 5 } });
      const again = await chat(s, key, {});
      expect(again.status).toBe(200);
      // (the same minute's window, or a fresh one if the minute turned meanwhile)
      expect([limit - 5 * 8 - reservation, limit - reservation]).toContain(Number(again.headers.get("x-ratelimit-remaining-tokens")));
      // A request that can never fit says so and asks not to be retried.
      const huge = await chat(s, key, { max_tokens: limit + 1 });
      expect(huge.status).toBe(429);
      expect(huge.headers.get("x-should-retry")).toBe("false");
      expect((await huge.json()).error.code).toBe("tokens_exceeded");
    });

    it("concurrent requests: parallel streams beyond the limit get 429; a finished stream frees its slot", async () => {
      oa.reset({ eventDelayMs: 200 });
      const key = await createKey(s, email, "--concurrency", "3");
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat(s, key, { stream: true })));
      expect(answers.filter((r) => r.status === 200).length).toBe(3);
      const refused = answers.find((r) => r.status === 429)!;
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await refused.json()).error.message).toMatch(/concurrent/);
      for (const r of answers.filter((r) => r.status === 200)) expect(await r.text()).toContain("[DONE]");
      await new Promise((r) => setTimeout(r, 100));
      oa.reset();
      expect((await chat(s, key, {})).status).toBe(200);
    });

    it.runIf(store === "redis" && usesPostgres())("two instances on one Redis share a key's limits: tokens per minute and concurrency hold across both", async () => {
      const other = await start({ REDIS_URL: "redis://127.0.0.1:6379/0" }, s);
      // Concurrency 3, ten parallel streams spread over both instances: three in all are served.
      oa.reset({ eventDelayMs: 200 });
      const ccKey = await createKey(s, email, "--concurrency", "3");
      const streams = await Promise.all(Array.from({ length: 10 }, (_, i) => chat(i % 2 ? other : s, ccKey, { stream: true })));
      expect(streams.filter((r) => r.status === 200).length).toBe(3);
      for (const r of streams) await r.text();

      // Tokens per minute: room for five reservations; twenty parallel requests over both instances.
      oa.reset({ usage: { input: 3, output: 5 } });
      const probe = await chat(s, await createKey(s, email, "--tpm", "1000000"), {});
      const reservation = 1_000_000 - Number(probe.headers.get("x-ratelimit-remaining-tokens"));
      const tpmKey = await createKey(s, email, "--tpm", String(reservation * 5 + Math.floor(reservation / 2)));
      oa.reset({ usage: { input: 3, output: 5 }, responseDelayMs: 1500 });
      if (new Date().getSeconds() >= 50) await new Promise((r) => setTimeout(r, (61 - new Date().getSeconds()) * 1000));
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(i % 2 ? other : s, tpmKey, {})));
      const served = answers.filter((r) => r.status === 200);
      expect(served.length).toBe(5);
      // One limit, not one per instance (each alone would have let five through: ten in all).
      expect(answers.filter((r) => r.status === 429).length).toBe(15);
      oa.reset();
    });

    it("an admin sets an account-wide limit with the CLI; every key of the account shares it", async () => {
      const { email: e2 } = await createAccount(s, { usd: 5 });
      const k1 = await createKey(s, e2);
      const k2 = await createKey(s, e2);
      const set = await adminOk(s, "account", "limits", "--email", e2, "--concurrency", "1");
      expect(set.stdout.at(-1)).toMatch(/concurrency 1/);
      oa.reset({ responseDelayMs: 1000 });
      const [a, b] = await Promise.all([chat(s, k1, {}), chat(s, k2, {})]);
      expect([a.status, b.status].sort()).toEqual([200, 429]);
      const refused = a.status === 429 ? a : b;
      expect((await refused.json()).error.message).toMatch(/account/);
      await adminOk(s, "account", "limits", "--email", e2, "--concurrency", "off");
      oa.reset();
    });
  });
}
