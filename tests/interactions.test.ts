/**
 * Google's Interactions API (issue 35) through @google/genai's own interactions client, set up as
 * the README says (API version v1), and raw REST on v1beta: create on every upstream kind,
 * previous_interaction_id, a function-call round trip, step-typed streaming, get/delete, store
 * false, background with a resumed stream and cancel, errors in Google's shape, another
 * account's id answered 404, and the books (one log row per interaction, nothing left held).
 */
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { idleBooks } from "./support/books";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { textFakeUrls, textGatewayConfig } from "./text-config";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
let email: string;
let key: string;
let google: GoogleGenAI;

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  server = await startTestServer({ config: textGatewayConfig(textFakeUrls(fakes)) });
  ({ email, key } = await createAccount(server, { usd: 1 }));
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

const rest = (method: string, path: string, body?: unknown, k = key) =>
  fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json", "x-goog-api-key": k }, body: body === undefined ? undefined : JSON.stringify(body) });

/** The SSE events of a body, parsed. */
async function events(r: Response): Promise<Array<Record<string, any>>> {
  const text = await r.text();
  return text
    .split("\n\n")
    .map((b) => b.split("\n").find((l) => l.startsWith("data: ")))
    .filter((l): l is string => !!l)
    .map((l) => JSON.parse(l.slice(6)));
}

const upstreams = [
  ["chat-openai", "openai"],
  ["chat-anthropic", "anthropic"],
  ["chat-gemini", "gemini"],
] as const;

describe("@google/genai interactions client", () => {
  it("creates on every upstream kind and continues with previous_interaction_id (history kept by the gateway)", async () => {
    for (const [model, fake] of upstreams) {
      fakes[fake].reset({ text: "Paris is the capital." });
      const first = await google.interactions.create({ model, input: "What is the capital of France?", system_instruction: "Be brief." });
      expect(first.status).toBe("completed");
      expect(first.output_text).toBe("Paris is the capital.");
      expect(first.steps).toEqual([{ type: "model_output", content: [{ type: "text", text: "Paris is the capital." }] }]);
      expect(first.usage).toMatchObject({ total_input_tokens: 11, total_output_tokens: 5, total_tokens: 16 });
      expect(first.id).toMatch(/^resp_/);

      fakes[fake].reset({ text: "About 2 million." });
      const second = await google.interactions.create({ model, input: "And its population?", previous_interaction_id: first.id });
      expect(second.output_text).toBe("About 2 million.");
      expect(second.previous_interaction_id).toBe(first.id);
      // The upstream got the whole history, not only the new turn (the system instruction is per request).
      const sent = JSON.stringify(fakes[fake].generationRequests()[0]!.body);
      for (const s of ["What is the capital of France?", "Paris is the capital.", "And its population?"]) expect(sent).toContain(s);
      expect(sent).not.toContain("Be brief.");
    }
    // Rows are written just after the reply: wait for the sixth.
    let n = 0;
    for (let i = 0; i < 50 && n < 6; i++, await new Promise((r) => setTimeout(r, 100)))
      n = (await server.query<{ n: number }>("select count(*)::int as n from request_logs where route = '/v1/interactions' and account_id = (select account_id from users where email = $1)", [email]))[0]!.n;
    expect(n).toBe(6);
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.balance).toBe(books.ledger);
  });

  it("a function call comes back as a step with status requires_action; its result continues the interaction", async () => {
    fakes.anthropic.reset({ text: "It is sunny.", toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }], toolCallsUntilResult: true });
    const tools = [{ type: "function" as const, name: "get_weather", description: "Weather now", parameters: { type: "object", properties: { city: { type: "string" } } } }];
    const first = await google.interactions.create({ model: "chat-anthropic", input: "Weather in Paris?", tools });
    expect(first.status).toBe("requires_action");
    const call = first.steps!.find((s) => s.type === "function_call") as { id: string; name: string; arguments: Record<string, unknown> };
    expect(call).toMatchObject({ name: "get_weather", arguments: { city: "Paris" } });
    const second = await google.interactions.create({
      model: "chat-anthropic",
      previous_interaction_id: first.id,
      tools,
      input: [{ type: "function_result", call_id: call.id, name: "get_weather", result: "sunny, 21C" }],
    });
    expect(second.status).toBe("completed");
    expect(second.output_text).toBe("It is sunny.");
    const sent = JSON.stringify(fakes.anthropic.generationRequests().at(-1)!.body);
    expect(sent).toContain("sunny, 21C");
    expect(sent).toContain(call.id);
  });

  it("streams step-typed events the SDK reads (created, step start/delta/stop, status, completed)", async () => {
    for (const [model, fake] of upstreams) {
      fakes[fake].reset({ text: "one two three" });
      const stream = await google.interactions.create({ model, input: "Count", stream: true });
      const seen: Array<Record<string, any>> = [];
      for await (const e of stream) seen.push(e as Record<string, any>);
      const types = seen.map((e) => e.event_type);
      expect(types[0]).toBe("interaction.created");
      expect(types).toContain("step.start");
      expect(types).toContain("step.stop");
      expect(types.at(-1)).toBe("interaction.completed");
      const text = seen.filter((e) => e.event_type === "step.delta" && e.delta.type === "text").map((e) => e.delta.text).join("");
      expect(text).toBe("one two three");
      const done = seen.at(-1)!.interaction;
      expect(done).toMatchObject({ status: "completed", usage: { total_input_tokens: 11, total_output_tokens: 5 } });
      // Stored: the whole interaction reads back, steps included.
      const got = await google.interactions.get(done.id);
      expect(got.output_text).toBe("one two three");
    }
  });

  it("get, delete; store:false keeps nothing; errors in Google's shape; another account's id is 404", async () => {
    const made = await google.interactions.create({ model: "chat-openai", input: "hi" });
    const other = await createAccount(server, { usd: 1 });
    const foreign = await rest("GET", `/v1beta/interactions/${made.id}`, undefined, other.key);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } });
    expect((await rest("DELETE", `/v1beta/interactions/${made.id}`, undefined, other.key)).status).toBe(404);

    expect((await google.interactions.get(made.id)).id).toBe(made.id);
    await google.interactions.delete(made.id);
    expect((await rest("GET", `/v1beta/interactions/${made.id}`)).status).toBe(404);

    const unstored = await google.interactions.create({ model: "chat-openai", input: "hi", store: false });
    expect(unstored.status).toBe("completed");
    expect((await rest("GET", `/v1beta/interactions/${unstored.id}`)).status).toBe(404);
    const chained = await rest("POST", "/v1beta/interactions", { model: "chat-openai", input: "again", previous_interaction_id: unstored.id });
    expect(chained.status).toBe(404);
    expect(JSON.stringify(await chained.json())).toContain("previous_interaction_id");

    for (const [body, param] of [
      [{ agent: "deep-research", input: "x" }, "agent"],
      [{ model: "chat-openai", input: "x", tools: [{ type: "google_search" }] }, "tools[0].type"],
      [{ model: "chat-openai", input: "x", generation_config: { stop_sequences: ["."] } }, "generation_config.stop_sequences"],
      [{ model: "chat-openai", input: [{ type: "audio", data: "AAAA", mime_type: "audio/wav" }] }, "input[0].type"],
    ] as const) {
      const r = await rest("POST", "/v1beta/interactions", body);
      expect(r.status).toBe(400);
      const b = (await r.json()) as any;
      expect(b.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
      expect(b.error.details[0].metadata.param).toBe(param);
    }
    // A persistent upstream rate limit reaches the client as Google's 429 with the wait (header and RetryInfo).
    fakes.openai.reset({ failTimes: 3, failStatus: 429, retryAfter: 1 });
    const limited = await rest("POST", "/v1beta/interactions", { model: "chat-openai", input: "x" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await limited.json()).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED", details: expect.arrayContaining([{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" }]) } });
    const noKey = await fetch(`${server.url}/v1beta/interactions`, { method: "POST", body: "{}" });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
  });

  it("background: answered queued at once, runs, streams again from last_event_id; a finished one cannot be cancelled twice", async () => {
    fakes.gemini.reset({ text: "a b c d", eventDelayMs: 20 });
    const r = await rest("POST", "/v1beta/interactions", { model: "chat-gemini", input: "go", background: true });
    expect(r.status).toBe(200);
    const queued = (await r.json()) as any;
    expect(queued).toMatchObject({ object: "interaction", status: "queued" });
    let got: any;
    for (let i = 0; i < 100; i++) {
      got = await google.interactions.get(queued.id);
      if (got.status === "completed") break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(got.output_text).toBe("a b c d");
    const all = await events(await rest("GET", `/v1beta/interactions/${queued.id}?stream=true`));
    expect(all.map((e) => e.event_type)).toContain("interaction.completed");
    const some = all.find((e) => e.event_type === "step.delta")!;
    const resumed = await events(await rest("GET", `/v1beta/interactions/${queued.id}?stream=true&last_event_id=${some.event_id}`));
    expect(resumed.length).toBeLessThan(all.length);
    expect(resumed.every((e) => Number(e.event_id) > Number(some.event_id))).toBe(true);
    const cancelled = await google.interactions.cancel(queued.id);
    expect(cancelled.status).toBe("completed");
    // A foreground interaction cannot be streamed again or cancelled.
    const fg = await google.interactions.create({ model: "chat-openai", input: "hi" });
    expect((await rest("POST", `/v1beta/interactions/${fg.id}/cancel`)).status).toBe(400);
  });
});
