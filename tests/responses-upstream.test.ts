/**
 * The `openai-responses` upstream protocol against a fake that speaks Responses exactly:
 * Responses clients pass through (unknown fields kept, metered from the terminal event),
 * Chat Completions and Messages clients are converted, and a stored reasoning item goes back
 * only to the upstream that produced it.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses, type ResponsesFake } from "./fakes/openai-responses-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { TEXT_PRICE_USD } from "./text-config";

let server: TestServer;
let a: ResponsesFake;
let b: ResponsesFake;
let anthropic: FakeTextUpstream;
let key: string;
const oa = () => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });

beforeAll(async () => {
  a = await startFakeOpenAIResponses({ name: "upstream-a" });
  b = await startFakeOpenAIResponses({ name: "upstream-b" });
  anthropic = await startFakeAnthropic();
  const model = (id: string, upstream: string, upstreamModel: string) => ({ id, kind: "text", upstream, upstreamModel, price: TEXT_PRICE_USD, defaultMaxTokens: 100 });
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "rs-a", protocol: "openai-responses", baseUrl: a.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 },
        { id: "rs-b", protocol: "openai-responses", baseUrl: b.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 },
        { id: "an", protocol: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_FAKE_KEY, timeoutMs: 3000 },
      ],
      models: [model("resp-a", "rs-a", "gpt-up-a"), model("resp-b", "rs-b", "gpt-up-b"), model("chat-anthropic", "an", "claude-fake")],
    },
  });
  key = (await createAccount(server, { usd: 5 })).key;
});
afterAll(async () => {
  await server?.dispose();
  for (const f of [a, b, anthropic]) await f?.close();
});
beforeEach(() => {
  for (const f of [a, b, anthropic]) f.reset();
  a.reasoning = false;
  b.reasoning = false;
});

describe("openai-responses upstream", () => {
  it("forwards the client's openai-beta header on passthrough, as chat completions does", async () => {
    a.reset({ text: "ok", usage: { input: 5, output: 1 } });
    await oa().responses.create({ model: "resp-a", input: "hi" }, { headers: { "openai-beta": "responses=v1-test" } });
    expect(a.generationRequests()[0]!.headers["openai-beta"]).toBe("responses=v1-test");
  });

  it("passes Responses clients through: unknown fields kept, model shown as the public id, metered", async () => {
    a.reset({ text: "Native answer.", usage: { input: 30, output: 7 } });
    const { data, response } = await oa()
      .responses.create({ model: "resp-a", input: "hi", safety_identifier: "user-1", reasoning: { effort: "low" }, metadata: { k: "v" }, max_output_tokens: 50 } as any)
      .withResponse();
    const sent = a.generationRequests()[0]!.body;
    expect(sent).toMatchObject({ model: "gpt-up-a", input: "hi", safety_identifier: "user-1", reasoning: { effort: "low" }, metadata: { k: "v" }, max_output_tokens: 50 });
    expect(data.model).toBe("resp-a");
    expect(data.id).not.toMatch(/^resp_upstream/); // the gateway's own id, not the upstream's
    expect((await oa().responses.retrieve(data.id)).output_text).toBe("Native answer.");
    expect(data.output_text).toBe("Native answer.");
    expect(data.usage).toMatchObject({ input_tokens: 30, output_tokens: 7 });
    expect(Number(response.headers.get("x-gateway-cost-usd"))).toBeCloseTo((30 * 1 + 7 * 2) / 1e6, 9);
    expect((data.usage as any).cost_usd).toBeCloseTo((30 * 1 + 7 * 2) / 1e6, 9);

    // Streamed: the upstream's events (names, sequence numbers), the cost in response.completed.
    a.reset({ text: "One two three", usage: { input: 12, output: 3 } });
    const stream = await oa().responses.create({ model: "resp-a", input: [{ role: "user", content: "count" }], stream: true });
    const types: string[] = [];
    let done: any;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === "response.completed") done = ev.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types.filter((t) => t === "response.output_text.delta")).toHaveLength(3);
    expect(done.model).toBe("resp-a");
    expect(done.id).not.toMatch(/^resp_upstream/);
    expect(done.usage.cost_usd).toBeCloseTo((12 + 3 * 2) / 1e6, 9);
    // Items go through as they are (passthrough), whether or not the gateway could convert them.
    a.reset();
    await oa().responses.create({ model: "resp-a", input: [{ type: "custom_tool_call_output", call_id: "c1", output: "ok" } as any, { role: "user", content: "go" }] });
    expect(a.generationRequests()[0]!.body.input[0]).toEqual({ type: "custom_tool_call_output", call_id: "c1", output: "ok" });
    // …and a converted upstream refuses an item type it cannot carry, naming it.
    const e = await oa().responses.create({ model: "chat-anthropic", input: [{ type: "mcp_approval_response", approval_request_id: "a1", approve: true } as any] }).catch((x) => x);
    expect(e.status).toBe(400);
    expect(e.message).toContain("input[0].type");
  });

  it("converts Chat Completions and Messages clients to Responses (text, tools, streams)", async () => {
    a.reset({ text: "Converted.", usage: { input: 9, output: 2 } });
    const chat = await oa().chat.completions.create({
      model: "resp-a",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
    });
    expect(chat.choices[0]!.message.content).toBe("Converted.");
    expect(chat.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 2 });
    const sent = a.generationRequests()[0]!.body;
    expect(sent).toMatchObject({
      model: "gpt-up-a",
      instructions: "Be brief.",
      store: false,
      input: [
        { role: "user", content: [{ type: "input_text", text: "Weather?" }] },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "call_1", output: "sunny" },
      ],
      tools: [{ type: "function", name: "get_weather" }],
    });

    a.reset({ text: "", toolCalls: [{ name: "get_weather", arguments: '{"city":"Rome"}' }] });
    const stream = await oa().chat.completions.create({ model: "resp-a", messages: [{ role: "user", content: "Rome?" }], stream: true, tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }] });
    let args = "";
    let finish: string | null = null;
    for await (const c of stream) {
      args += c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(args).toBe('{"city":"Rome"}');
    expect(finish).toBe("tool_calls");

    a.reset({ text: "Hi from Responses." });
    const msg = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "resp-a", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(msg.status).toBe(200);
    expect(((await msg.json()) as any).content[0].text).toBe("Hi from Responses.");

    const refused = await oa().chat.completions.create({ model: "resp-a", messages: [{ role: "user", content: "x" }], stop: ["END"] }).catch((e) => e);
    expect(refused.status).toBe(400);
    expect(refused.message).toContain("stop");
  });

  it("replays a stored conversation natively and sends reasoning back only to the upstream that produced it", async () => {
    a.reasoning = true;
    a.reset({ text: "Thought about it." });
    const first = await oa().responses.create({ model: "resp-a", input: "Think." });
    const rs = first.output.find((o) => o.type === "reasoning") as any;
    expect(rs.encrypted_content).toMatch(/^gw1\.[\w-]{12}\.enc:upstream-a:/); // tagged with its upstream

    // Same upstream: the reasoning item goes back (the fake verifies it); previous_response_id never reaches it.
    a.reset({ text: "Again." });
    const second = await oa().responses.create({ model: "resp-a", input: "More.", previous_response_id: first.id });
    expect(second.output_text).toBe("Again.");
    const sentA = a.generationRequests()[0]!.body;
    expect(sentA.previous_response_id).toBeUndefined();
    expect(sentA.input.map((i: any) => i.type ?? i.role)).toEqual(["message", "reasoning", "message", "message"]);

    // Another Responses upstream: it could not verify the content, so it is not sent.
    b.reset({ text: "From B." });
    const third = await oa().responses.create({ model: "resp-b", input: "Continue.", previous_response_id: second.id });
    expect(third.output_text).toBe("From B.");
    expect(b.generationRequests()[0]!.body.input.some((i: any) => i.type === "reasoning")).toBe(false);

    // A converted upstream: replayed as text and tool calls only.
    anthropic.reset({ text: "From Claude." });
    const fourth = await oa().responses.create({ model: "chat-anthropic", input: "And now?", previous_response_id: second.id });
    expect(fourth.output_text).toBe("From Claude.");
    expect(anthropic.generationRequests()[0]!.body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);

    // Sent back by a stateless client (store: false): unwrapped for its upstream, left out for another.
    a.reset({ text: "Stateless A." });
    await oa().responses.create({ model: "resp-a", store: false, input: [{ role: "user", content: "Think." }, rs, { role: "user", content: "Go on." }] });
    expect(a.generationRequests()[0]!.body.input[1]).toEqual({ id: rs.id, type: "reasoning", summary: [], encrypted_content: rs.encrypted_content.replace(/^gw1\.[\w-]{12}\./, "") });
    b.reset({ text: "Stateless B." });
    const toB = await oa().responses.create({ model: "resp-b", store: false, input: [{ role: "user", content: "Think." }, rs, { role: "user", content: "Go on." }] });
    expect(toB.output_text).toBe("Stateless B.");
    expect(b.generationRequests()[0]!.body.input.map((i: any) => i.type ?? i.role)).toEqual(["user", "user"]);

    // An item_reference to the reasoning item resolves too, with the same rule.
    b.reset({ text: "Ref." });
    await oa().responses.create({ model: "resp-b", input: [{ type: "item_reference", id: rs.id }, { role: "user", content: "ok" }] });
    expect(b.generationRequests()[0]!.body.input).toEqual([{ role: "user", content: "ok" }]);
  });
});
