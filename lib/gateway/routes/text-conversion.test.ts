/**
 * The conversion policy through handleText and the fake upstreams (docs/conversion-policy.md):
 * hints dropped and named (or refused on a strict model), per-model rules, reasoning controls
 * mapped and reasoning streamed back, signatures round-tripped, Responses tool types, faithful
 * passthrough. Each case asserts what the client got and what the fake upstream received.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "../../../tests/fakes/anthropic-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "../../../tests/fakes/gemini-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "../../../tests/fakes/openai-upstream";
import type { FakeTextUpstream } from "../../../tests/fakes/text-fake-core";
import type { ModelRoute } from "../model-route";
import { JSON_MODE_INSTRUCTION } from "../upstreams/anthropic-messages-request";
import { DROPPED_PARAMS_HEADER } from "./text-handler";
import { ENFORCED_PARAMS_HEADER } from "./text-run";
import { startTestHost, type TestHost } from "../../../tests/fakes/text-test-host";

const PRICE = { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 };
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
let host: TestHost;

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  const keys = { openai: OPENAI_FAKE_KEY, anthropic: ANTHROPIC_FAKE_KEY, gemini: GEMINI_FAKE_KEY };
  const route = (model: string, protocol: "openai" | "anthropic" | "gemini", upstreamModel: string, strict = false): ModelRoute => ({
    rowId: `row-${model}`,
    modelId: model,
    kind: "text",
    family: null,
    ownedBy: "test",
    upstreamModel,
    price: PRICE,
    defaultMaxTokens: 1000,
    priority: 0,
    weight: 1,
    strict,
    upstream: { id: `u-${protocol}`, protocol, baseUrl: fakes[protocol].baseUrl, apiKey: keys[protocol], timeoutMs: 5000 },
  });
  host = await startTestHost({
    "m-openai": [route("m-openai", "openai", "gpt-4o-fake")],
    "m-openai-strict": [route("m-openai-strict", "openai", "gpt-4o-fake", true)],
    "m-gpt5": [route("m-gpt5", "openai", "gpt-5")],
    "m-anthropic": [route("m-anthropic", "anthropic", "claude-fake")],
    "m-claude45": [route("m-claude45", "anthropic", "claude-sonnet-4-5-20250929")],
    "m-gemini": [route("m-gemini", "gemini", "gemini-2.5-flash")],
    "m-gemini3": [route("m-gemini3", "gemini", "gemini-3-pro-preview")],
  });
});
afterAll(async () => {
  await host?.close();
  for (const f of Object.values(fakes ?? {})) await f.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${host.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const lastBody = (up: keyof typeof fakes) => fakes[up].generationRequests().at(-1)!.body;
const gc = (model: string, stream = false) => `/v1beta/models/${model}:${stream ? "streamGenerateContent" : "generateContent"}`;
const openai = () => new OpenAI({ apiKey: "sk-client", baseURL: `${host.url}/v1`, maxRetries: 0 });

describe("hints", () => {
  it("Gemini topK to an OpenAI upstream is dropped and named in x-gateway-dropped-params", async () => {
    fakes.openai.reset();
    const r = await post(gc("m-openai"), { contents: [{ parts: [{ text: "hi" }] }], generationConfig: { topK: 40, temperature: 0.5 } });
    expect(r.status).toBe(200);
    expect(r.headers.get(DROPPED_PARAMS_HEADER)).toBe("generationConfig.topK");
    const sent = lastBody("openai");
    expect(sent.top_k).toBeUndefined();
    expect(sent.temperature).toBe(0.5);
  });

  it("seed and penalties to an Anthropic upstream are dropped and named; the stream carries the header too", async () => {
    fakes.anthropic.reset();
    const r = await post("/v1/chat/completions", { model: "m-anthropic", seed: 7, presence_penalty: 0.1, stream: true, messages: [{ role: "user", content: "hi" }] });
    expect(r.status).toBe(200);
    expect(r.headers.get(DROPPED_PARAMS_HEADER)).toBe("seed, presence_penalty");
    await r.text();
    expect(lastBody("anthropic")).not.toHaveProperty("seed");
  });

  it("Claude takes parallel_tool_calls: false as its own switch", async () => {
    fakes.anthropic.reset();
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }];
    const a = await post("/v1/chat/completions", { model: "m-anthropic", parallel_tool_calls: false, tools, messages: [{ role: "user", content: "hi" }] });
    expect(a.status).toBe(200);
    expect(a.headers.get(DROPPED_PARAMS_HEADER)).toBeNull();
    expect(lastBody("anthropic").tool_choice).toMatchObject({ disable_parallel_tool_use: true });
  });

  it("logprobs are data, not a hint: Gemini's own converted (plain and streamed), Claude's a 400 naming the field", async () => {
    fakes.anthropic.reset();
    const a = await post("/v1/chat/completions", { model: "m-anthropic", logprobs: true, top_logprobs: 2, messages: [{ role: "user", content: "hi" }] });
    expect(a.status).toBe(400);
    const e = ((await a.json()) as any).error;
    expect(e.param).toBe("logprobs");
    expect(fakes.anthropic.generationRequests()).toHaveLength(0);
    fakes.gemini.reset({ text: "Hi there" });
    const r = await openai().chat.completions.create({ model: "m-gemini", logprobs: true, top_logprobs: 2, messages: [{ role: "user", content: "hi" }] });
    expect(lastBody("gemini").generationConfig).toMatchObject({ responseLogprobs: true, logprobs: 2 });
    const content = r.choices[0]!.logprobs!.content!;
    expect(content.map((t) => t.token)).toEqual(["Hi", " there"]);
    expect(content[0]).toEqual({ token: "Hi", logprob: -0.25, bytes: [72, 105], top_logprobs: [{ token: "Hi", logprob: -0.25, bytes: [72, 105] }, { token: "Hi~1", logprob: -0.5, bytes: [72, 105, 126, 49] }] });
    const streamed: string[] = [];
    for await (const c of await openai().chat.completions.create({ model: "m-gemini", stream: true, logprobs: true, messages: [{ role: "user", content: "hi" }] }))
      streamed.push(...(c.choices[0]?.logprobs?.content ?? []).map((t) => t.token));
    expect(streamed).toEqual(["Hi", " there"]);
    // Not asked: none.
    const plain = await openai().chat.completions.create({ model: "m-gemini", messages: [{ role: "user", content: "hi" }] });
    expect(plain.choices[0]!.logprobs).toBeNull();
  });

  it("one call at a time served by Gemini (no switch): the gateway keeps the first call, plain and streamed, and names it", async () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }];
    const two = { toolCalls: [{ name: "f", arguments: '{"n":1}' }, { name: "f", arguments: '{"n":2}' }] };
    fakes.gemini.reset(two);
    const g = await openai().chat.completions.create({ model: "m-gemini", parallel_tool_calls: false, tools: tools as never, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(g.response.headers.get(ENFORCED_PARAMS_HEADER)).toBe("parallel_tool_calls");
    expect(g.response.headers.get(DROPPED_PARAMS_HEADER)).toBeNull();
    expect(g.data.choices[0]!.message.tool_calls!.map((c) => (c as { function: { arguments: string } }).function.arguments)).toEqual(['{"n":1}']);
    expect(g.data.choices[0]!.finish_reason).toBe("tool_calls");
    // Anthropic's own switch, streamed from Gemini.
    const s = await post("/v1/messages", { model: "m-gemini", max_tokens: 50, stream: true, tools: [{ name: "f", input_schema: { type: "object" } }], tool_choice: { type: "auto", disable_parallel_tool_use: true }, messages: [{ role: "user", content: "hi" }] });
    expect(s.headers.get(ENFORCED_PARAMS_HEADER)).toBe("tool_choice.disable_parallel_tool_use");
    const events = await s.text();
    expect(events.match(/"type":"tool_use"/g)).toHaveLength(1);
    expect(events).toContain('\\"n\\":1');
    expect(events).not.toContain('\\"n\\":2');
    // Without the ask, both calls come back and nothing is named.
    fakes.gemini.reset(two);
    const both = await post("/v1/chat/completions", { model: "m-gemini", tools, messages: [{ role: "user", content: "hi" }] });
    expect(both.headers.get(ENFORCED_PARAMS_HEADER)).toBeNull();
    expect(((await both.json()) as any).choices[0].message.tool_calls).toHaveLength(2);
  });

  it("prompt-cache fields are carried where the target has them and named where it caches on its own", async () => {
    const cached = [{ role: "user", content: [{ type: "text", text: "long prefix", cache_control: { type: "ephemeral" } }] }];
    fakes.anthropic.reset();
    const toClaude = await post("/v1/chat/completions", { model: "m-anthropic", prompt_cache_key: "k1", messages: cached });
    expect(toClaude.headers.get(DROPPED_PARAMS_HEADER)).toBe("prompt_cache_key");
    expect(JSON.stringify(lastBody("anthropic"))).toContain('"cache_control"');
    fakes.gemini.reset();
    const toGemini = await post("/v1/chat/completions", { model: "m-gemini", messages: cached });
    expect(toGemini.headers.get(DROPPED_PARAMS_HEADER)).toBe("cache_control");
    fakes.openai.reset();
    const fromMessages = await post("/v1/messages", { model: "m-openai", max_tokens: 10, system: [{ type: "text", text: "s", cache_control: { type: "ephemeral", ttl: "1h" } }], messages: [{ role: "user", content: "hi" }] });
    expect(fromMessages.status).toBe(200);
    expect(fromMessages.headers.get(DROPPED_PARAMS_HEADER)).toBe("cache_control");
    fakes.openai.reset();
    const keyToOpenAI = await post(gc("m-openai"), { contents: [{ parts: [{ text: "hi" }] }] });
    expect(keyToOpenAI.headers.get(DROPPED_PARAMS_HEADER)).toBeNull();
  });

  it("JSON mode to Claude: a prefilled '{' where the model continues one (the answer shown whole, plain and streamed), else the instruction alone", async () => {
    const json = { response_format: { type: "json_object" as const }, messages: [{ role: "system" as const, content: "Be brief." }, { role: "user" as const, content: "hi" }] };
    fakes.anthropic.reset({ text: '"ok": true}' });
    const r = await openai().chat.completions.create({ model: "m-claude45", ...json });
    expect(r.choices[0]!.message.content).toBe('{"ok": true}');
    expect(lastBody("anthropic").messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "{" }] });
    expect(lastBody("anthropic").system).toEqual([{ type: "text", text: "Be brief." }, { type: "text", text: JSON_MODE_INSTRUCTION }]);
    let streamed = "";
    for await (const c of await openai().chat.completions.create({ model: "m-claude45", stream: true, ...json })) streamed += c.choices[0]?.delta.content ?? "";
    expect(JSON.parse(streamed)).toEqual({ ok: true });
    // Thinking on (or Claude 4.6 and later, or tools): no prefill, the instruction alone.
    fakes.anthropic.reset({ text: '{"ok":true}' });
    const thinking = await openai().chat.completions.create({ model: "m-claude45", reasoning_effort: "low", max_completion_tokens: 8000, ...json });
    expect(thinking.choices[0]!.message.content).toBe('{"ok":true}');
    expect(lastBody("anthropic").messages.at(-1).role).toBe("user");
    const r2 = await openai().chat.completions.create({ model: "m-anthropic", ...json });
    expect(r2.choices[0]!.message.content).toBe('{"ok":true}');
    expect(lastBody("anthropic").messages.at(-1).role).toBe("user");
    expect(lastBody("anthropic").system).toEqual([{ type: "text", text: "Be brief." }, { type: "text", text: JSON_MODE_INSTRUCTION }]);
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
    await openai().chat.completions.create({ model: "m-anthropic", response_format: { type: "json_schema", json_schema: { name: "r", schema } }, messages: [{ role: "user", content: "hi" }] });
    expect(lastBody("anthropic").output_config).toEqual({ format: { type: "json_schema", schema } });
  });

  it("a strict model refuses a hint with a 400 naming it, before any upstream call", async () => {
    fakes.openai.reset();
    const r = await post(gc("m-openai-strict"), { contents: [{ parts: [{ text: "hi" }] }], generationConfig: { topK: 40 } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.message).toMatch(/^generationConfig\.topK: .*strict/);
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });

  it("Claude 4.5-class: temperature wins over top_p (named); other models keep both", async () => {
    fakes.anthropic.reset();
    const r = await post("/v1/chat/completions", { model: "m-claude45", temperature: 0.3, top_p: 0.9, messages: [{ role: "user", content: "hi" }] });
    expect(r.status).toBe(200);
    expect(r.headers.get(DROPPED_PARAMS_HEADER)).toBe("top_p");
    expect(lastBody("anthropic")).toMatchObject({ temperature: 0.3 });
    expect(lastBody("anthropic").top_p).toBeUndefined();
    await post("/v1/chat/completions", { model: "m-anthropic", temperature: 0.3, top_p: 0.9, messages: [{ role: "user", content: "hi" }] });
    expect(lastBody("anthropic")).toMatchObject({ temperature: 0.3, top_p: 0.9 });
  });

  it("Claude Code's long metadata.user_id goes to OpenAI as a bounded, stable user", async () => {
    fakes.openai.reset();
    const long = `user_${"a".repeat(64)}_account_${"b".repeat(36)}_session_${"c".repeat(36)}`;
    await post("/v1/messages", { model: "m-openai", max_tokens: 50, metadata: { user_id: long }, messages: [{ role: "user", content: "hi" }] });
    const a = lastBody("openai").user as string;
    await post("/v1/messages", { model: "m-openai", max_tokens: 50, metadata: { user_id: long }, messages: [{ role: "user", content: "hi" }] });
    expect(a.length).toBeLessThanOrEqual(64);
    expect(lastBody("openai").user).toBe(a);
    expect(a).not.toContain("aaaa");
  });
});

describe("reasoning controls map", () => {
  it("Messages thinking → Gemini thinkingConfig and OpenAI reasoning_effort", async () => {
    fakes.gemini.reset();
    const body = { max_tokens: 20000, thinking: { type: "enabled", budget_tokens: 10000 }, messages: [{ role: "user", content: "hi" }] };
    expect((await post("/v1/messages", { model: "m-gemini", ...body })).status).toBe(200);
    expect(lastBody("gemini").generationConfig).toMatchObject({ thinkingConfig: { thinkingBudget: 10000, includeThoughts: true }, maxOutputTokens: 20000 });
    expect((await post("/v1/messages", { model: "m-gemini3", ...body })).status).toBe(200);
    expect(lastBody("gemini").generationConfig.thinkingConfig).toEqual({ thinkingLevel: "high", includeThoughts: true });
    fakes.openai.reset();
    expect((await post("/v1/messages", { model: "m-gpt5", ...body })).status).toBe(200);
    expect(lastBody("openai").reasoning_effort).toBe("high");
    // A model without reasoning controls gets none (its nearest setting), not a 400.
    expect((await post("/v1/messages", { model: "m-openai", ...body })).status).toBe(200);
    expect(lastBody("openai").reasoning_effort).toBeUndefined();
  });

  it("Gemini thinkingConfig → Anthropic thinking under max_tokens; no thinking is always accepted", async () => {
    fakes.anthropic.reset();
    const r = await post(gc("m-anthropic"), { contents: [{ parts: [{ text: "hi" }] }], generationConfig: { maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 8000, includeThoughts: true } } });
    expect(r.status).toBe(200);
    expect(lastBody("anthropic")).toMatchObject({ max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 3999 } });
    const off = await post(gc("m-anthropic"), { contents: [{ parts: [{ text: "hi" }] }], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } });
    expect(off.status).toBe(200);
    expect(lastBody("anthropic").thinking).toBeUndefined();
  });

  it("a client thinking budget above the catalog cap raises the injected cap", async () => {
    fakes.gemini.reset();
    await post("/v1/chat/completions", { model: "m-gemini", reasoning_effort: "high", messages: [{ role: "user", content: "hi" }] });
    expect(lastBody("gemini").generationConfig.thinkingConfig).toMatchObject({ thinkingBudget: 16384 });
    await post(gc("m-anthropic"), { contents: [{ parts: [{ text: "hi" }] }], generationConfig: { thinkingConfig: { thinkingBudget: 5000 } } });
    const sent = lastBody("anthropic");
    expect(sent.max_tokens).toBeGreaterThan(5000);
    expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 5000 });
  });

  it("Responses reasoning.effort → Anthropic thinking; with thinking on, sampling knobs Anthropic refuses are dropped and named", async () => {
    fakes.anthropic.reset();
    const r = await post("/v1/responses", { model: "m-anthropic", input: "hi", max_output_tokens: 9000, temperature: 0.2, reasoning: { effort: "low", summary: "auto" } });
    expect(r.status).toBe(200);
    expect(r.headers.get(DROPPED_PARAMS_HEADER)).toBe("temperature");
    expect(lastBody("anthropic")).toMatchObject({ thinking: { type: "enabled", budget_tokens: 4096 } });
    expect(lastBody("anthropic").temperature).toBeUndefined();
  });
});

describe("reasoning comes back in the client's form", () => {
  it("Anthropic thinking → chat reasoning_content (plain and streamed)", async () => {
    fakes.anthropic.reset({ thinking: { thinking: "Let me think.", signature: "sig" }, text: "42" });
    const r = await openai().chat.completions.create({ model: "m-anthropic", reasoning_effort: "low", messages: [{ role: "user", content: "q" }] });
    expect((r.choices[0]!.message as any).reasoning_content).toBe("Let me think.");
    expect(r.choices[0]!.message.content).toBe("42");
    const s = await openai().chat.completions.create({ model: "m-anthropic", stream: true, messages: [{ role: "user", content: "q" }] });
    let reasoning = "";
    for await (const c of s) reasoning += (c.choices[0]?.delta as any)?.reasoning_content ?? "";
    expect(reasoning).toBe("Let me think.");
  });

  it("Gemini thought parts → Messages thinking blocks (streamed), marked as not Anthropic's", async () => {
    fakes.gemini.reset({ reasoning: "Hmm.", text: "Hi" });
    const r = await post("/v1/messages", { model: "m-gemini", max_tokens: 3000, stream: true, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [{ role: "user", content: "q" }] });
    const text = await r.text();
    expect(text).toContain('"content_block":{"type":"thinking"');
    expect(text).toContain('"thinking_delta","thinking":"Hmm."');
    expect(text).toMatch(/"signature_delta","signature":"gateway:gemini"/);
    // Echoed back next turn, it is not sent to Gemini as anything.
    fakes.gemini.reset();
    await post("/v1/messages", {
      model: "m-gemini",
      max_tokens: 3000,
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: [{ type: "thinking", thinking: "Hmm.", signature: "gateway:gemini" }, { type: "text", text: "Hi" }] },
        { role: "user", content: "again" },
      ],
    });
    expect(JSON.stringify(lastBody("gemini").contents)).not.toContain("Hmm.");
  });

  it("Anthropic thinking → Responses reasoning item (streamed events); replayed, the signed block goes back to Anthropic", async () => {
    fakes.anthropic.reset({ thinking: { thinking: "Plan it.", signature: "SIGNED-BY-ANTHROPIC" }, text: "", toolCalls: [{ name: "f", arguments: '{"a":1}' }] });
    const stream = await openai().responses.create({ model: "m-anthropic", input: "q", max_output_tokens: 5000, reasoning: { effort: "low", summary: "auto" }, tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: false }], stream: true });
    const types: string[] = [];
    let done: any;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.completed") done = e.response;
    }
    expect(types).toContain("response.reasoning_summary_text.delta");
    const reasoning = done.output.find((o: any) => o.type === "reasoning");
    expect(reasoning.summary[0].text).toBe("Plan it.");
    expect(reasoning.encrypted_content).toBeTruthy();
    expect(reasoning.encrypted_content).not.toContain("SIGNED-BY-ANTHROPIC");
    const call = done.output.find((o: any) => o.type === "function_call");
    fakes.anthropic.reset();
    await openai().responses.create({
      model: "m-anthropic",
      max_output_tokens: 5000,
      reasoning: { effort: "low" },
      tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: false }],
      input: [{ role: "user", content: "q" }, reasoning, call, { type: "function_call_output", call_id: call.call_id, output: "ok" }],
    });
    const sent = lastBody("anthropic");
    expect(sent.thinking).toMatchObject({ type: "enabled" });
    expect(sent.messages[1].content[0]).toEqual({ type: "thinking", thinking: "Plan it.", signature: "SIGNED-BY-ANTHROPIC" });
  });

  it("a chat client that cannot echo thinking: the tool loop's next turn goes without thinking instead of a 400", async () => {
    fakes.anthropic.reset();
    await post("/v1/chat/completions", {
      model: "m-anthropic",
      reasoning_effort: "medium",
      max_completion_tokens: 20000,
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "toolu_1", content: "ok" },
      ],
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
    });
    expect(lastBody("anthropic").thinking).toBeUndefined();
  });
});

describe("Gemini signatures round-trip", () => {
  const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];

  it("a call's thoughtSignature rides in the tool-call id and goes back to Gemini only", async () => {
    fakes.gemini.reset({ text: "", toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}', signature: "c2lnbmF0dXJlLzEr" }] });
    const first = await openai().chat.completions.create({ model: "m-gemini3", tools, messages: [{ role: "user", content: "w?" }] });
    const call = first.choices[0]!.message.tool_calls![0]! as any;
    expect(call.id).toMatch(/^[A-Za-z0-9_-]+$/);
    const history = [
      { role: "user" as const, content: "w?" },
      { role: "assistant" as const, content: null, tool_calls: [call] },
      { role: "tool" as const, tool_call_id: call.id, content: "18C" },
    ];
    fakes.gemini.reset();
    await openai().chat.completions.create({ model: "m-gemini3", tools, messages: history });
    const parts = lastBody("gemini").contents[1].parts;
    expect(parts[0]).toMatchObject({ functionCall: { name: "get_weather" }, thoughtSignature: "c2lnbmF0dXJlLzEr" });
    // Another vendor gets the bare id on both sides of the pair, never the signature.
    fakes.anthropic.reset();
    await openai().chat.completions.create({ model: "m-anthropic", tools, messages: history });
    const sent = JSON.stringify(lastBody("anthropic"));
    expect(sent).not.toContain("c2lnbmF0dXJl");
    const am = lastBody("anthropic").messages;
    expect(am[1].content[0].id).toBe(am[2].content[0].tool_use_id);
  });

  it("Gemini 3: a replayed call whose signature is unknown gets Google's documented placeholder; Gemini 2.5 gets none", async () => {
    const history = {
      tools,
      messages: [
        { role: "user", content: "w?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_x", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_x", content: "18C" },
      ],
    };
    fakes.gemini.reset();
    await post("/v1/chat/completions", { model: "m-gemini3", ...history });
    expect(lastBody("gemini").contents[1].parts[0].thoughtSignature).toBe("skip_thought_signature_validator");
    await post("/v1/chat/completions", { model: "m-gemini", ...history });
    expect(lastBody("gemini").contents[1].parts[0].thoughtSignature).toBeUndefined();
  });
});

describe("Responses tools on other upstreams", () => {
  const codexTools = [
    { type: "custom", name: "apply_patch", description: "Apply a patch.", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } },
    { type: "namespace", name: "mcp__files", description: "File tools.", tools: [{ type: "function", name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }] },
    { type: "web_search" },
    { type: "tool_search" },
  ];

  it("custom → one-string function (grammar in the description), namespace flattened, web_search mapped, tool_search dropped and named", async () => {
    fakes.anthropic.reset();
    const r = await post("/v1/responses", { model: "m-anthropic", input: "go", tools: codexTools });
    expect(r.status).toBe(200);
    expect(r.headers.get(DROPPED_PARAMS_HEADER)).toBe("tool_search");
    const sent = lastBody("anthropic").tools;
    expect(sent[0]).toMatchObject({ name: "apply_patch", input_schema: { properties: { input: { type: "string" } }, required: ["input"] } });
    expect(sent[0].description).toContain("start: /.+/");
    expect(sent[1]).toMatchObject({ name: "mcp__files__read" });
    expect(sent[2]).toEqual({ type: "web_search_20250305", name: "web_search" });
    fakes.gemini.reset();
    await post("/v1/responses", { model: "m-gemini", input: "go", tools: codexTools });
    expect(lastBody("gemini").tools[1]).toEqual({ googleSearch: {} });
  });

  it("calls come back as custom_tool_call (streamed input events) and namespaced function_call", async () => {
    fakes.gemini.reset({ text: "", toolCalls: [{ name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' }, { name: "mcp__files__read", arguments: '{"path":"a"}' }] });
    const stream = await openai().responses.create({ model: "m-gemini", input: "go", tools: codexTools as any, stream: true });
    const types: string[] = [];
    let done: any;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.completed") done = e.response;
    }
    expect(types).toContain("response.custom_tool_call_input.done");
    expect(done.output[0]).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch" });
    expect(done.output[1]).toMatchObject({ type: "function_call", name: "read", namespace: "mcp__files", arguments: '{"path":"a"}' });
    // The next turn replays both; upstream they are the flat function calls again.
    fakes.anthropic.reset();
    const r = await post("/v1/responses", {
      model: "m-anthropic",
      tools: codexTools,
      input: [
        { role: "user", content: "go" },
        done.output[0],
        { type: "custom_tool_call_output", call_id: done.output[0].call_id, output: "Done!" },
        { type: "additional_tools", tools: [{ type: "function", name: "extra", parameters: { type: "object" } }] },
      ],
    });
    expect(r.status).toBe(200);
    const sent = lastBody("anthropic");
    expect(sent.messages[1].content[0]).toMatchObject({ type: "tool_use", name: "apply_patch", input: { input: "*** Begin Patch" } });
    expect(sent.messages[2].content[0]).toMatchObject({ type: "tool_result", content: [{ type: "text", text: "Done!" }] });
    expect(sent.tools.map((t: any) => t.name)).toContain("extra");
  });
});

describe("passthrough is faithful", () => {
  it("Anthropic: anthropic-beta and anthropic-version go upstream, the caller's key never", async () => {
    fakes.anthropic.reset();
    const r = await post(
      "/v1/messages",
      { model: "m-anthropic", max_tokens: 50, context_management: { edits: [] }, messages: [{ role: "user", content: "hi" }] },
      { "anthropic-beta": "context-management-2025-06-27", "anthropic-version": "2023-06-01", "x-api-key": "sk-client-secret" },
    );
    expect(r.status).toBe(200);
    const req = fakes.anthropic.generationRequests().at(-1)!;
    expect(req.headers["anthropic-beta"]).toBe("context-management-2025-06-27");
    expect(req.headers["x-api-key"]).toBe(ANTHROPIC_FAKE_KEY);
    expect(JSON.stringify(req.headers)).not.toContain("sk-client-secret");
    expect(req.body.context_management).toEqual({ edits: [] });
  });

  it("Gemini: no maxOutputTokens is added to what the client sent", async () => {
    fakes.gemini.reset();
    await post(gc("m-gemini"), { contents: [{ parts: [{ text: "hi" }] }], generationConfig: { thinkingConfig: { thinkingBudget: 2048 } } });
    expect(lastBody("gemini").generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 2048 } });
    await post(gc("m-gemini"), { contents: [{ parts: [{ text: "hi" }] }] });
    expect(lastBody("gemini").generationConfig).toBeUndefined();
  });

  it("Anthropic-defined client tools and documents pass through; converted, they are a 400 naming them", async () => {
    fakes.anthropic.reset();
    const body = { max_tokens: 50, tools: [{ type: "bash_20250124", name: "bash" }], messages: [{ role: "user", content: "hi" }] };
    expect((await post("/v1/messages", { model: "m-anthropic", ...body })).status).toBe(200);
    expect(lastBody("anthropic").tools).toEqual(body.tools);
    const bad = await post("/v1/messages", { model: "m-openai", ...body });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toMatch(/^tools\[0\] \(bash_20250124\)/);
  });
});

describe("errors in each protocol's own shape", () => {
  it("Messages: Anthropic's error types, the spec's code kept; Gemini: Google's {code, message, status}", async () => {
    const am = await post("/v1/messages", { model: "nope", max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    expect(am.status).toBe(404);
    expect(await am.json()).toMatchObject({ type: "error", error: { type: "not_found_error", code: "model_not_found" } });
    const bad = await post("/v1/messages", { model: "m-anthropic", messages: [{ role: "user", content: "x" }] });
    expect(await bad.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", code: "invalid_request", message: expect.stringMatching(/^max_tokens/) } });
    const gg = await post(gc("nope"), { contents: [{ parts: [{ text: "x" }] }] });
    expect(gg.status).toBe(404);
    expect(((await gg.json()) as any).error).toMatchObject({ code: 404, status: "NOT_FOUND", message: expect.any(String), details: [{ reason: "model_not_found" }] });
    // The OpenAI-style routes keep the spec's envelope.
    const cc = await post("/v1/chat/completions", { model: "nope", messages: [{ role: "user", content: "x" }] });
    expect(((await cc.json()) as any).error).toMatchObject({ type: "invalid_request", code: "model_not_found" });
  });
});

it("a converted Messages stream starts with the prompt's size, not 0", async () => {
  fakes.openai.reset();
  const r = await post("/v1/messages", { model: "m-openai", max_tokens: 50, stream: true, messages: [{ role: "user", content: "count the words of this rather long prompt please" }] });
  const start = (await r.text()).split("\n\n").find((e) => e.startsWith("event: message_start"))!;
  const input = JSON.parse(start.split("data: ")[1]!).message.usage.input_tokens;
  expect(input).toBeGreaterThan(5);
});
