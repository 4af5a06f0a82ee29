/**
 * The `gemini-interactions` upstream protocol (issue 35) against a fake speaking Google's
 * Interactions wire: converted clients (chat completions, Messages streamed, a tool loop) get
 * their answers; a conversation this process served continues with only the new turn and
 * `previous_interaction_id` (the vendor keeps the history), per client key; an interaction the
 * vendor forgot is sent again whole; usage is read in the Interactions dialect and billed.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GEMINI_INTERACTIONS_FAKE_KEY, startFakeGeminiInteractions, type FakeInteractions } from "./fakes/gemini-interactions-upstream";
import { idleBooks } from "./support/books";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let fake: FakeInteractions;
let email: string;
let key: string;

beforeAll(async () => {
  fake = await startFakeGeminiInteractions();
  server = await startTestServer({
    config: {
      upstreams: [{ id: "gi", protocol: "gemini-interactions", baseUrl: fake.baseUrl, apiKey: GEMINI_INTERACTIONS_FAKE_KEY, timeoutMs: 3000 }],
      models: [{ id: "chat-gi", kind: "text", upstream: "gi", upstreamModel: "gemini-3-flash-preview", price: { inputPerMTok: 1, outputPerMTok: 2 }, defaultMaxTokens: 100 }],
    },
  });
  ({ email, key } = await createAccount(server, { usd: 1 }));
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});
beforeEach(() => fake.reset());

type Msg = { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string };
async function chat(messages: Msg[], k = key, extra: Record<string, unknown> = {}) {
  const r = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${k}` },
    body: JSON.stringify({ model: "chat-gi", messages, ...extra }),
  });
  return { status: r.status, body: (await r.json()) as any, headers: r.headers };
}

describe("gemini-interactions upstream", () => {
  it("sends only the new turn with previous_interaction_id once the vendor holds the history; bills its usage", async () => {
    fake.reset({ text: "Paris." });
    const first = await chat([{ role: "system", content: "Be brief." }, { role: "user", content: "Capital of France?" }]);
    expect(first.status).toBe(200);
    expect(first.body.choices[0].message.content).toBe("Paris.");
    expect(first.body.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5 });
    const sent1 = fake.generationRequests()[0]!;
    expect(sent1.headers["x-goog-api-key"]).toBe(GEMINI_INTERACTIONS_FAKE_KEY);
    expect(sent1.body).toMatchObject({ model: "gemini-3-flash-preview", store: true, system_instruction: "Be brief.", input: [{ type: "user_input", content: [{ type: "text", text: "Capital of France?" }] }] });
    expect(sent1.body.previous_interaction_id).toBeUndefined();

    fake.reset({ text: "About 2 million." });
    const history: Msg[] = [{ role: "system", content: "Be brief." }, { role: "user", content: "Capital of France?" }, { role: "assistant", content: "Paris." }, { role: "user", content: "Population?" }];
    const second = await chat(history);
    expect(second.body.choices[0].message.content).toBe("About 2 million.");
    const sent2 = fake.generationRequests()[0]!.body;
    expect(sent2.previous_interaction_id).toMatch(/^v1_fake/);
    expect(sent2.input).toEqual([{ type: "user_input", content: [{ type: "text", text: "Population?" }] }]);
    expect(sent2.system_instruction).toBe("Be brief.");

    // Another key with the very same conversation never continues this key's interaction.
    const other = await createAccount(server, { usd: 1 });
    fake.reset({ text: "Two million." });
    await chat(history, other.key);
    expect(fake.generationRequests()[0]!.body.previous_interaction_id).toBeUndefined();
    expect(fake.generationRequests()[0]!.body.input).toHaveLength(3);

    const books = await idleBooks(server, email); // settled, so the rows are written
    expect(books).toMatchObject({ held: 0, holds: 0, balance: books.ledger });
    const rows = await server.query<{ input: string; output: string; cost: string }>(
      "select input_tokens as input, output_tokens as output, cost_micro_usd as cost from request_logs where account_id = (select account_id from users where email = $1) order by created_at",
      [email],
    );
    expect(rows.map((r) => [Number(r.input), Number(r.output), Number(r.cost)])).toEqual([
      [11, 5, 21],
      [11, 5, 21],
    ]);
  });

  it("a vendor that forgot the interaction gets the whole history again, in the same request", async () => {
    fake.reset({ text: "One." });
    await chat([{ role: "user", content: "Count" }]);
    fake.forget();
    fake.reset({ text: "Two." });
    const r = await chat([{ role: "user", content: "Count" }, { role: "assistant", content: "One." }, { role: "user", content: "Next" }]);
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toBe("Two.");
    const sent = fake.generationRequests();
    expect(sent).toHaveLength(2);
    expect(sent[0]!.body.previous_interaction_id).toBeDefined();
    expect(sent[0]!.refused?.status).toBe(404);
    expect(sent[1]!.body.previous_interaction_id).toBeUndefined();
    expect(sent[1]!.body.input).toHaveLength(3);
  });

  it("@google/genai's interactions client end to end: our previous_interaction_id becomes the vendor's, only the new turn goes", async () => {
    const google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
    fake.reset({ text: "Paris." });
    const first = await google.interactions.create({ model: "chat-gi", input: "Capital of France?" });
    expect(first.output_text).toBe("Paris.");
    fake.reset({ text: "About 2 million." });
    const second = await google.interactions.create({ model: "chat-gi", input: "Population?", previous_interaction_id: first.id });
    expect(second.output_text).toBe("About 2 million.");
    const sent = fake.generationRequests()[0]!.body;
    expect(sent.previous_interaction_id).toMatch(/^v1_fake/);
    expect(sent.previous_interaction_id).not.toBe(first.id); // the gateway's id is its own
    expect(sent.input).toEqual([{ type: "user_input", content: [{ type: "text", text: "Population?" }] }]);
  });

  it("a streamed Messages tool loop: function call steps, the result sent alone as a function_result step", async () => {
    const anthropic = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    fake.reset({ text: "Sunny.", reasoning: "Check the weather.", toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}', id: "call_w1" }], toolCallsUntilResult: true });
    const tools = [{ name: "get_weather", description: "Weather now", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }];
    const first = await anthropic.messages.stream({ model: "chat-gi", max_tokens: 100, tools, messages: [{ role: "user", content: "Weather in Paris?" }] }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((b) => b.type === "tool_use")!;
    expect(use).toMatchObject({ id: "call_w1", name: "get_weather", input: { city: "Paris" } });
    const second = await anthropic.messages
      .stream({
        model: "chat-gi",
        max_tokens: 100,
        tools,
        messages: [
          { role: "user", content: "Weather in Paris?" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "call_w1", content: "sunny, 21C" }] },
        ],
      })
      .finalMessage();
    expect(second.content.find((b) => b.type === "text")).toMatchObject({ text: "Sunny." });
    const sent = fake.generationRequests().at(-1)!.body;
    expect(sent.stream).toBe(true);
    expect(sent.previous_interaction_id).toMatch(/^v1_fake/);
    expect(sent.input).toEqual([{ type: "function_result", call_id: "call_w1", result: "sunny, 21C" }]);
  });

  it("one call at a time (no switch in the Interactions API): the first call kept, plain and streamed, named; the next turn goes whole", async () => {
    const two = { toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}', id: "call_p" }, { name: "get_weather", arguments: '{"city":"Rome"}', id: "call_r" }] };
    const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const ask: Msg[] = [{ role: "user", content: "Weather in Paris and Rome?" }];
    fake.reset(two);
    const plain = await chat(ask, key, { tools, parallel_tool_calls: false });
    expect(plain.headers.get("x-gateway-enforced-params")).toBe("parallel_tool_calls");
    expect(plain.headers.get("x-gateway-dropped-params")).toBeNull();
    expect(plain.body.choices[0].message.tool_calls.map((c: any) => c.id)).toEqual(["call_p"]);
    fake.reset(two);
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "chat-gi", messages: ask, tools, parallel_tool_calls: false, stream: true }),
    });
    expect(r.headers.get("x-gateway-enforced-params")).toBe("parallel_tool_calls");
    const events = await r.text();
    expect(events).toContain("call_p");
    expect(events).not.toContain("call_r");
    // The vendor's interaction holds both calls; the client's history has one: sent whole, not chained.
    fake.reset({ text: "Sunny." });
    const next = await chat([...ask, { role: "assistant", content: null, tool_calls: plain.body.choices[0].message.tool_calls }, { role: "tool", tool_call_id: "call_p", content: "sunny" }], key, { tools, parallel_tool_calls: false });
    expect(next.body.choices[0].message.content).toBe("Sunny.");
    const sent = fake.generationRequests()[0]!.body;
    expect(sent.previous_interaction_id).toBeUndefined();
    expect(sent.input.map((s: any) => s.type)).toEqual(["user_input", "function_call", "function_result"]);
  });
});
