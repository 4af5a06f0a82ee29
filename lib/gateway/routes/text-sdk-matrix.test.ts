/**
 * Every inbound protocol × every upstream protocol, driven through the official SDKs against
 * handleText on a small in-test host (no database): plain, streamed and tool calling, asserting
 * what the client got and what the fake upstream received.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI, Type } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "../../../tests/fakes/anthropic-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "../../../tests/fakes/gemini-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "../../../tests/fakes/openai-upstream";
import type { FakeTextUpstream } from "../../../tests/fakes/text-fake-core";
import type { TextRoute } from "../upstreams/text-types";
import { startTestHost, type TestHost } from "./text-test-server";

const PRICE = { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 };
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
let host: TestHost;

function route(model: string, protocol: string, baseUrl: string, apiKey: string | null): TextRoute {
  return { rowId: `row-${model}`, modelId: model, kind: "text", upstreamModel: `up-${model}`, price: PRICE, defaultMaxTokens: 1000, upstream: { id: `u-${protocol}`, protocol, baseUrl, apiKey, timeoutMs: 5000 } };
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

const UPSTREAMS = ["openai", "anthropic", "gemini"] as const;
const TEXT = "Hello from the fake upstream!";
const TOOL = { name: "get_weather", arguments: '{"city":"Paris"}' };
const weatherSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

/** The last generation request the fake saw, as plain data: its model, prompt text and tools. */
function received(up: (typeof UPSTREAMS)[number]) {
  const reqs = fakes[up].generationRequests();
  expect(reqs.length).toBeGreaterThan(0);
  const r = reqs[reqs.length - 1]!;
  const body = r.body;
  const text = JSON.stringify(up === "gemini" ? body.contents : body.messages);
  const model = up === "gemini" ? decodeURIComponent(r.path.split("/models/")[1]!.split(":")[0]!) : body.model;
  const toolNames: string[] =
    up === "openai" ? (body.tools ?? []).map((t: any) => t.function.name) : up === "anthropic" ? (body.tools ?? []).map((t: any) => t.name) : (body.tools?.[0]?.functionDeclarations ?? []).map((t: any) => t.name);
  return { r, body, text, model, toolNames };
}

const clients = () => ({
  openai: new OpenAI({ apiKey: "sk-client", baseURL: `${host.url}/v1`, maxRetries: 0 }),
  anthropic: new Anthropic({ apiKey: "sk-client", baseURL: host.url, maxRetries: 0 }),
  google: new GoogleGenAI({ apiKey: "sk-client", httpOptions: { baseUrl: host.url } }),
});

describe.each(UPSTREAMS)("upstream %s", (up) => {
  const model = `m-${up}`;
  const reset = (tools = false) => fakes[up].reset(tools ? { text: "", toolCalls: [TOOL] } : { text: TEXT });

  it("chat completions plain", async () => {
    reset();
    const r = await clients().openai.chat.completions.create({ model, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Say hi" }] });
    expect(r.choices[0]!.message.content).toBe(TEXT);
    expect(r.choices[0]!.finish_reason).toBe("stop");
    expect(r.model).toBe(model);
    expect(r.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 });
    const got = received(up);
    expect(got.model).toBe(`up-${model}`);
    expect(got.text).toContain("Say hi");
    expect(JSON.stringify(got.body)).toContain("Be brief.");
  });

  it("chat completions streamed with usage", async () => {
    reset();
    const stream = await clients().openai.chat.completions.create({ model, messages: [{ role: "user", content: "Say hi" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage: any = null;
    let finish: string | null = null;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? "";
      finish = c.choices[0]?.finish_reason ?? finish;
      if (c.usage) usage = c.usage;
    }
    expect(text).toBe(TEXT);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5 });
    expect(usage.cost_usd).toBeCloseTo((11 * 1 + 5 * 2) / 1e6 * 1e6 / 1e6, 9);
    expect(received(up).body.stream ?? up === "gemini").toBeTruthy();
  });

  it("chat completions tool call round trip (stream helper)", async () => {
    reset(true);
    const runner = clients().openai.chat.completions.stream({
      model,
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]! as any;
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(received(up).toolNames).toEqual(["get_weather"]);
    // Second turn: the tool result goes back in the upstream's own shape.
    reset();
    const r = await clients().openai.chat.completions.create({
      model,
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: "get_weather", arguments: call.function.arguments } }] },
        { role: "tool", tool_call_id: call.id, content: "18C, cloudy" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
    });
    expect(r.choices[0]!.message.content).toBe(TEXT);
    const got = received(up);
    expect(got.text).toContain("18C, cloudy");
    if (up === "anthropic") expect(got.text).toContain("tool_result");
    if (up === "gemini") expect(got.text).toContain("functionResponse");
    if (up === "openai") expect(got.text).toContain('"role":"tool"');
  });

  it("responses plain and streamed", async () => {
    reset();
    const r = await clients().openai.responses.create({ model, input: "Say hi", instructions: "Be brief." });
    expect(r.output_text).toBe(TEXT);
    expect(r.usage?.input_tokens).toBe(11);
    expect(JSON.stringify(received(up).body)).toContain("Be brief.");
    reset();
    const stream = await clients().openai.responses.create({ model, input: [{ role: "user", content: "Say hi" }], stream: true });
    let text = "";
    let completed: any = null;
    let seq = -1;
    for await (const ev of stream) {
      expect(ev.sequence_number).toBe(seq + 1);
      seq = ev.sequence_number;
      if (ev.type === "response.output_text.delta") text += ev.delta;
      if (ev.type === "response.completed") completed = ev.response;
    }
    expect(text).toBe(TEXT);
    expect(completed.output_text ?? completed.output[0].content[0].text).toBe(TEXT);
  });

  it("responses tool call (streamed helper)", async () => {
    reset(true);
    const stream = clients().openai.responses.stream({ model, input: "Weather in Paris?", tools: [{ type: "function", name: "get_weather", parameters: weatherSchema, strict: false }] });
    const final = await stream.finalResponse();
    const call = final.output.find((o) => o.type === "function_call") as any;
    expect(call.name).toBe("get_weather");
    expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });
    expect(received(up).toolNames).toEqual(["get_weather"]);
  });

  it("messages plain, streamed and tool use", async () => {
    reset();
    const r = await clients().anthropic.messages.create({ model, max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "Say hi" }] });
    expect(r.content[0]).toMatchObject({ type: "text", text: TEXT });
    expect(r.stop_reason).toBe("end_turn");
    expect(r.usage.output_tokens).toBe(5);
    reset();
    const s = clients().anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "Say hi" }] });
    let text = "";
    s.on("text", (t) => (text += t));
    const fin = await s.finalMessage();
    expect(text).toBe(TEXT);
    expect(fin.usage.output_tokens).toBe(5);
    reset(true);
    const t = clients().anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "Weather?" }], tools: [{ name: "get_weather", input_schema: weatherSchema as any }] });
    const tm = await t.finalMessage();
    const tu = tm.content.find((b) => b.type === "tool_use") as any;
    expect(tu.name).toBe("get_weather");
    expect(tu.input).toEqual({ city: "Paris" });
    expect(tm.stop_reason).toBe("tool_use");
    expect(received(up).toolNames).toEqual(["get_weather"]);
  });

  it("generateContent plain, streamed and function calling", async () => {
    reset();
    const g = clients().google;
    const r = await g.models.generateContent({ model, contents: "Say hi", config: { systemInstruction: "Be brief.", maxOutputTokens: 50 } });
    expect(r.text).toBe(TEXT);
    expect(r.usageMetadata?.promptTokenCount).toBe(11);
    expect(JSON.stringify(received(up).body)).toContain("Be brief.");
    reset();
    let text = "";
    for await (const c of await g.models.generateContentStream({ model, contents: "Say hi" })) text += c.text ?? "";
    expect(text).toBe(TEXT);
    reset(true);
    const fc = await g.models.generateContent({
      model,
      contents: "Weather in Paris?",
      config: { tools: [{ functionDeclarations: [{ name: "get_weather", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] }] },
    });
    expect(fc.functionCalls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    const got = received(up);
    expect(got.toolNames).toEqual(["get_weather"]);
    if (up !== "gemini") expect(JSON.stringify(got.body.tools)).toContain('"type":"object"');
  });
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

  it("n > 1 and previous_response_id → 400", async () => {
    const c = clients();
    await expect(c.openai.chat.completions.create({ model: "m-openai", n: 2, messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 400 });
    await expect(c.openai.responses.create({ model: "m-openai", input: "x", previous_response_id: "resp_1" })).rejects.toMatchObject({ status: 400 });
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
    expect(s.reason).toBe("completed");
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
