/**
 * Prompt-cache and reasoning tokens, billed each at its own price and reported in each
 * client's own shape, through the real server and fake upstreams: upstream shape × inbound shape
 * × {none, cache read, 5-minute write, 1-hour write} × {JSON, stream} → the client's usage fields
 * and the charge to the micro-dollar (header, request-log row with every class and the price
 * snapshot). Then hostile usage counts (issue 12 item 2): never a 5xx, never a lost charge.
 */
import { formatUsd } from "../lib/billing/money";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "./fakes/gemini-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses } from "./fakes/openai-responses-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream, TextScript } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { clientUsage, expectedUsage, sseEvents, type Classes, type Inbound } from "./support/usage-shapes";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

type Up = "openai" | "anthropic" | "gemini";

// USD per million tokens: Claude-Sonnet-like cache prices, and reasoning priced apart.
const PRICE_USD = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWrite5mPerMTok: 3.75, cacheWrite1hPerMTok: 6, reasoningPerMTok: 20 };

let server: TestServer;
let fakes: Record<Up, FakeTextUpstream>;
/** A second OpenAI upstream: the model "sticky-openai" has two entries (oa first, oa2 second). */
let backup: FakeTextUpstream;
let responsesUp: FakeTextUpstream;
let key: string;
let email: string;

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  backup = await startFakeOpenAI();
  responsesUp = await startFakeOpenAIResponses();
  const model = (id: string, upstream: string, upstreamModel: string, price: Record<string, number> = PRICE_USD) => ({ id, kind: "text", upstream, upstreamModel, price, defaultMaxTokens: 200 });
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "oa", protocol: "openai", baseUrl: fakes.openai.baseUrl, apiKey: OPENAI_FAKE_KEY, timeoutMs: 3000 },
        { id: "an", protocol: "anthropic", baseUrl: fakes.anthropic.baseUrl, apiKey: ANTHROPIC_FAKE_KEY, timeoutMs: 3000 },
        { id: "ge", protocol: "gemini", baseUrl: fakes.gemini.baseUrl, apiKey: GEMINI_FAKE_KEY, timeoutMs: 3000 },
        { id: "oa2", protocol: "openai", baseUrl: backup.baseUrl, apiKey: OPENAI_FAKE_KEY, timeoutMs: 3000 },
        { id: "rs", protocol: "openai-responses", baseUrl: responsesUp.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 },
      ],
      models: [
        model("cache-openai", "oa", "gpt-fake"),
        model("cache-anthropic", "an", "claude-fake"),
        model("cache-gemini", "ge", "gemini-fake"),
        // No class prices: every class falls back to the input or output price.
        model("plain-anthropic", "an", "claude-fake", { inputPerMTok: 3, outputPerMTok: 15 }),
        model("cache-responses", "rs", "gpt-fake"),
        model("sticky-openai", "oa", "gpt-fake"),
        model("sticky-openai", "oa2", "gpt-fake"),
      ],
    },
  });
  ({ key, email } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
  await backup?.close();
  await responsesUp?.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
  backup.reset();
  responsesUp.reset();
});

// ~2,500 bytes of prompt: its hold bound covers the 2,000 input tokens the fakes report.
const PROMPT = "word ".repeat(500);

function request(inbound: Inbound, model: string, stream: boolean): { path: string; headers: Record<string, string>; body: unknown } {
  switch (inbound) {
    case "chat":
      return {
        path: "/v1/chat/completions",
        headers: { authorization: `Bearer ${key}` },
        body: { model, max_tokens: 200, messages: [{ role: "user", content: PROMPT }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) },
      };
    case "responses":
      return { path: "/v1/responses", headers: { authorization: `Bearer ${key}` }, body: { model, max_output_tokens: 200, input: PROMPT, stream } };
    case "messages":
      return {
        path: "/v1/messages",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
        body: { model, max_tokens: 200, messages: [{ role: "user", content: PROMPT }], stream },
      };
    case "gemini":
      return {
        path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
        headers: { "x-goog-api-key": key },
        body: { contents: [{ role: "user", parts: [{ text: PROMPT }] }], generationConfig: { maxOutputTokens: 200 } },
      };
  }
}

type Scenario = "none" | "read" | "write 5m" | "write 1h";
const BASE = { input: 2000, output: 100, reasoning: 40 };
const CLASSES: Record<Scenario, Classes> = {
  none: { ...BASE, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 },
  read: { ...BASE, cacheRead: 1500, cacheWrite5m: 0, cacheWrite1h: 0 },
  "write 5m": { ...BASE, cacheRead: 0, cacheWrite5m: 1200, cacheWrite1h: 0 },
  "write 1h": { ...BASE, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 1200 },
};
// µUSD, worked by hand from PRICE_USD (per million tokens → µUSD per token: 3, 0.3, 3.75, 6, 15, 20);
// output 100 = 60 visible × 15 + 40 reasoning × 20 = 1,700 in every row.
const CHARGE: Record<Scenario, number> = {
  none: 2000 * 3 + 1700, // 7,700
  read: 500 * 3 + 1500 * 0.3 + 1700, // 3,650
  "write 5m": 800 * 3 + 1200 * 3.75 + 1700, // 8,600
  "write 1h": 800 * 3 + 1200 * 6 + 1700, // 11,300
};
// What each vendor's usage can express: Gemini reports no cache writes; OpenAI-compatible
// upstreams report writes without a TTL (cache_write_tokens, billed as 5-minute writes).
const SCENARIOS: Record<Up, Scenario[]> = {
  anthropic: ["none", "read", "write 5m", "write 1h"],
  openai: ["none", "read", "write 5m"],
  gemini: ["none", "read"],
};

async function call(inbound: Inbound, model: string, stream: boolean) {
  const r = request(inbound, model, stream);
  const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
  return { res, text: await res.text(), requestId: res.headers.get("x-request-id")! };
}

const logRow = (requestId: string) => logRowOf(server, requestId);

const CASES: Array<[Up, Inbound, Scenario, boolean]> = [];
for (const up of ["anthropic", "openai", "gemini"] as const)
  for (const inbound of ["chat", "responses", "messages", "gemini"] as const)
    for (const scenario of SCENARIOS[up]) for (const stream of [false, true]) CASES.push([up, inbound, scenario, stream]);

describe("cache and reasoning tokens: usage in the client's shape and the charge to the micro-dollar", () => {
  it.each(CASES)("%s upstream → %s client, %s, stream %s", async (up, inbound, scenario, stream) => {
    const c = CLASSES[scenario];
    fakes[up].reset({ usage: { ...c } });
    const { res, text, requestId } = await call(inbound, `cache-${up}`, stream);
    expect(res.status, text).toBe(200);
    expect(clientUsage(inbound, stream, text)).toMatchObject(expectedUsage(inbound, c));
    if (inbound === "messages" && stream) {
      // message_start already says how big the prompt is (an estimate until message_delta's exact count).
      const start = sseEvents(text).find((e) => e.data.type === "message_start")!.data.message.usage;
      expect(start.input_tokens).toBeGreaterThan(0);
    }
    if (!stream) expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(CHARGE[scenario]));
    const row = await logRow(requestId);
    if (row) {
      expect(Number(row.cost_micro_usd)).toBe(CHARGE[scenario]);
      expect(row).toMatchObject({
        settlement: "completed",
        input_tokens: c.input,
        output_tokens: c.output,
        cache_read_tokens: c.cacheRead,
        cache_write_5m_tokens: c.cacheWrite5m,
        cache_write_1h_tokens: c.cacheWrite1h,
        reasoning_tokens: c.reasoning,
        usage_note: null,
      });
      expect(row.price_snapshot).toEqual({
        inputPerMTok: 3_000_000, outputPerMTok: 15_000_000, cacheReadPerMTok: 300_000, cacheWrite5mPerMTok: 3_750_000, cacheWrite1hPerMTok: 6_000_000, reasoningPerMTok: 20_000_000,
      });
    }
  });

  it("a model without class prices bills every class at the input or output price, and its snapshot says which prices were used", async () => {
    fakes.anthropic.reset({ usage: { input: 2000, output: 100, cacheRead: 1500, cacheWrite1h: 300, reasoning: 40 } });
    const { res, requestId } = await call("messages", "plain-anthropic", false);
    expect(res.status).toBe(200);
    // 2,000 × 3 + 100 × 15 µUSD
    expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(7_500));
    const row = await logRow(requestId);
    if (row)
      expect(row.price_snapshot).toEqual({
        inputPerMTok: 3_000_000, outputPerMTok: 15_000_000, cacheReadPerMTok: 3_000_000, cacheWrite5mPerMTok: 3_000_000, cacheWrite1hPerMTok: 3_000_000, reasoningPerMTok: 15_000_000,
      });
  });
});

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { res, text: await res.text() };
}
const bearer = () => ({ authorization: `Bearer ${key}` });
const EPH_1H = { type: "ephemeral", ttl: "1h" };
const EPH = { type: "ephemeral" };

describe("caching across protocols", () => {
  const tool = { type: "function", function: { name: "lookup", description: "find", parameters: { type: "object", properties: {} } }, cache_control: EPH_1H };

  it("chat: cache_control on system parts, tools and content parts reaches an Anthropic upstream where the client put it, TTL included", async () => {
    const { res, text } = await post("/v1/chat/completions", bearer(), {
      model: "cache-anthropic",
      max_tokens: 50,
      tools: [tool],
      messages: [
        { role: "system", content: [{ type: "text", text: "You are terse." }, { type: "text", text: "Long shared rules.", cache_control: EPH_1H }, { type: "text", text: "Today is Monday." }] },
        { role: "user", content: [{ type: "text", text: "A long document.", cache_control: EPH }, { type: "text", text: "The question?" }] },
      ],
    });
    expect(res.status, text).toBe(200);
    const sent = fakes.anthropic.generationRequests()[0]!.body;
    expect(sent.tools[0]).toMatchObject({ name: "lookup", cache_control: EPH_1H });
    expect(sent.system).toEqual([
      { type: "text", text: "You are terse." },
      { type: "text", text: "Long shared rules.", cache_control: EPH_1H },
      { type: "text", text: "Today is Monday." },
    ]);
    expect(sent.messages[0].content).toEqual([{ type: "text", text: "A long document.", cache_control: EPH }, { type: "text", text: "The question?" }]);
  });

  it("Responses: cache_control on input parts and tools reaches an Anthropic upstream", async () => {
    const { res, text } = await post("/v1/responses", bearer(), {
      model: "cache-anthropic",
      max_output_tokens: 50,
      instructions: "Be brief.",
      tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: {} }, cache_control: EPH_1H }],
      input: [
        { role: "developer", content: [{ type: "input_text", text: "Shared rules.", cache_control: EPH_1H }] },
        { role: "user", content: [{ type: "input_text", text: "Doc.", cache_control: { type: "ephemeral", ttl: "5m" } }, { type: "input_text", text: "Q?" }] },
      ],
    });
    expect(res.status, text).toBe(200);
    const sent = fakes.anthropic.generationRequests()[0]!.body;
    expect(sent.tools[0].cache_control).toEqual(EPH_1H);
    expect(sent.system).toEqual([{ type: "text", text: "Be brief." }, { type: "text", text: "\n\nShared rules.", cache_control: EPH_1H }]);
    expect(sent.messages[0].content[0]).toEqual({ type: "text", text: "Doc.", cache_control: { type: "ephemeral", ttl: "5m" } });
  });

  it("a cache_control that is not ephemeral with a 5m/1h ttl is a 400 naming the field, before any upstream call", async () => {
    const { res, text } = await post("/v1/chat/completions", bearer(), {
      model: "cache-anthropic",
      messages: [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "ephemeral", ttl: "2h" } }] }],
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(text).error.param).toBe("messages[0].content[0].cache_control.ttl");
    expect(fakes.anthropic.generationRequests()).toHaveLength(0);
  });

  it("Messages passthrough keeps cache_control verbatim (the upstream enforces its own rules)", async () => {
    const body = {
      model: "cache-anthropic",
      max_tokens: 50,
      system: [{ type: "text", text: "Rules.", cache_control: EPH_1H }],
      messages: [{ role: "user", content: [{ type: "text", text: "Doc.", cache_control: EPH }] }],
    };
    const { res, text } = await post("/v1/messages", { "x-api-key": key, "anthropic-version": "2023-06-01" }, body);
    expect(res.status, text).toBe(200);
    const sent = fakes.anthropic.generationRequests()[0]!.body;
    expect(sent.system).toEqual(body.system);
    expect(sent.messages).toEqual(body.messages);
  });

  it("prompt_cache_key and prompt_cache_retention go to OpenAI upstreams, from chat (passthrough) and Responses (converted)", async () => {
    const hints = { prompt_cache_key: "tenant-42", prompt_cache_retention: "24h" };
    expect((await post("/v1/chat/completions", bearer(), { model: "cache-openai", messages: [{ role: "user", content: "hi" }], ...hints })).res.status).toBe(200);
    expect((await post("/v1/responses", bearer(), { model: "cache-openai", input: "hi", ...hints })).res.status).toBe(200);
    const [a, b] = fakes.openai.generationRequests();
    expect(a!.body).toMatchObject(hints);
    expect(b!.body).toMatchObject(hints);
    // A chat client converted to an OpenAI Responses upstream.
    const c = await post("/v1/chat/completions", bearer(), { model: "cache-responses", messages: [{ role: "user", content: "hi" }], ...hints });
    expect(c.res.status, c.text).toBe(200);
    expect(responsesUp.generationRequests()[0]!.body).toMatchObject(hints);
  });
});

describe("prompt-cache affinity across the entries of a model", () => {
  const ask = (cacheKey: string, stream = false) =>
    call2("/v1/chat/completions", { model: "sticky-openai", prompt_cache_key: cacheKey, stream, messages: [{ role: "user", content: "hi" }] });
  async function call2(path: string, body: unknown) {
    const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
    await res.text();
    return { status: res.status, requestId: res.headers.get("x-request-id")! };
  }

  it("a key's requests with the same prompt_cache_key stay on the entry that served them, the choice on the log row", async () => {
    // The first entry fails: the request fails over to the second, which now holds the cache.
    fakes.openai.reset({ failTimes: 100, failStatus: 503 });
    const a = await ask("session-1");
    expect(a.status).toBe(200);
    expect(backup.generationRequests()).toHaveLength(1);
    // The first entry is healthy again, yet the same cache key goes where its cache is — streamed too.
    fakes.openai.reset();
    const b = await ask("session-1");
    const c = await ask("session-1", true);
    expect([b.status, c.status]).toEqual([200, 200]);
    expect(backup.generationRequests()).toHaveLength(3);
    expect(fakes.openai.generationRequests()).toHaveLength(0);
    // Another cache key follows the configured order.
    const d = await ask("session-2");
    expect(d.status).toBe(200);
    expect(fakes.openai.generationRequests()).toHaveLength(1);
    if (usesPostgres()) {
      const routing = async (id: string) => (await logRow(id))!.routing;
      expect([await routing(a.requestId), await routing(b.requestId), await routing(c.requestId), await routing(d.requestId)]).toEqual(["failover", "sticky", "sticky", "order"]);
      expect((await logRow(b.requestId))!.upstream_id).toBe("oa2");
    }
  });

  it("without a cache key, the same prompt prefix sticks the same way; a model with one entry writes no routing", async () => {
    fakes.openai.reset({ failTimes: 100, failStatus: 503 });
    const body = (q: string) => ({ model: "sticky-openai", messages: [{ role: "system", content: "Shared long rules " + "x".repeat(100) }, { role: "user", content: q }] });
    expect((await call2("/v1/chat/completions", body("first question"))).status).toBe(200);
    fakes.openai.reset();
    expect((await call2("/v1/chat/completions", body("first question"))).status).toBe(200);
    expect(backup.generationRequests()).toHaveLength(2);
    const single = await call2("/v1/chat/completions", { model: "cache-openai", messages: [{ role: "user", content: "hi" }] });
    if (usesPostgres()) expect((await logRow(single.requestId))!.routing).toBeNull();
  });
});

describe("class prices in GET /v1/models", () => {
  it("lists each text model's class prices in USD per million tokens, the fallbacks resolved", async () => {
    const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const { data } = (await res.json()) as { data: Array<{ id: string; pricing?: Record<string, number> }> };
    expect(data.find((m) => m.id === "cache-anthropic")!.pricing).toEqual({
      input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_5m_per_mtok: 3.75, cache_write_1h_per_mtok: 6, reasoning_per_mtok: 20,
    });
    expect(data.find((m) => m.id === "plain-anthropic")!.pricing).toEqual({
      input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 3, cache_write_5m_per_mtok: 3, cache_write_1h_per_mtok: 3, reasoning_per_mtok: 15,
    });
  });
});

/** Hostile upstream usage (issue 12 item 2): each form answers 200, is charged and logged, and says so on the row. */
describe("upstream usage that is not a finite whole number", () => {
  const HOSTILE: Array<[string, Partial<TextScript>, { input?: number; output?: number; estimated: Array<"input" | "output">; note?: RegExp }]> = [
    ['numeric strings ("5") are numbers, never concatenated', { rawUsage: { input_tokens: "5", output_tokens: "3", cache_read_input_tokens: "0", cache_creation_input_tokens: 0 } }, { input: 5, output: 3, estimated: [] }],
    ["a negative count", { rawUsage: { input_tokens: -5, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }, { output: 3, estimated: ["input"], note: /inputUncached/ }],
    ["a missing count", { rawUsage: { output_tokens: 3 } }, { output: 3, estimated: ["input"] }],
    ["1e999", { rawUsage: { input_tokens: "__raw:1e999", output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }, { output: 3, estimated: ["input"], note: /inputUncached/ }],
    ['"many"', { rawUsage: { input_tokens: 20, output_tokens: "many", cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }, { input: 20, estimated: ["output"], note: /outputTotal/ }],
    ["a fractional count (7.5)", { rawUsage: { input_tokens: 7.5, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }, { output: 3, estimated: ["input"], note: /inputUncached/ }],
    ["a negative cache class is 0 and named", { rawUsage: { input_tokens: 20, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: -100 } }, { input: 20, output: 3, estimated: [], note: /cacheRead/ }],
    // 2³¹ + 5 is whole and finite: taken as is (64-bit columns), the charge clamped to the hold.
    ["a count above 2³¹", { rawUsage: { input_tokens: 2 ** 31 + 5, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }, { input: 2 ** 31 + 5, output: 3, estimated: [] }],
  ];

  it.each(HOSTILE.flatMap(([name, script, want]) => [false, true].map((stream) => [name, script, want, stream] as const)))(
    "%s (stream %s)",
    async (_name, script, want, stream) => {
      fakes.anthropic.reset(script);
      const { res, text, requestId } = await call("chat", "cache-anthropic", stream);
      expect(res.status, text).toBe(200);
      const usage = clientUsage("chat", stream, text);
      if (want.input !== undefined) expect(usage.prompt_tokens).toBe(want.input);
      if (want.output !== undefined) expect(usage.completion_tokens).toBe(want.output);
      for (const v of [usage.prompt_tokens, usage.completion_tokens]) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
      const row = await logRow(requestId);
      if (!row) return;
      expect(row.status).toBe(200);
      expect(row.settlement).toBe(want.estimated.length ? "completed_estimated" : "completed");
      expect(row.input_tokens).toBe(usage.prompt_tokens);
      expect(row.output_tokens).toBe(usage.completion_tokens);
      expect(Number(row.cost_micro_usd)).toBeGreaterThan(0);
      for (const part of want.estimated) expect(row.usage_note).toContain(part);
      if (want.note) expect(row.usage_note).toMatch(want.note);
      if (!want.estimated.length && !want.note) expect(row.usage_note).toBeNull();
    },
  );

  it("leaves nothing held once idle: every hostile request above was settled", async () => {
    if (!usesPostgres()) return;
    let held = -1;
    for (let i = 0; i < 50 && held !== 0; i++) {
      const [r] = await server.query<{ held: string }>("select a.held_micro_usd as held from accounts a join users u on u.account_id = a.id where u.email = $1", [email]);
      held = Number(r!.held);
      if (held) await new Promise((res) => setTimeout(res, 100));
    }
    expect(held).toBe(0);
  });
});
