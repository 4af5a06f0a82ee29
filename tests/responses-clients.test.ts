/**
 * Clients that lean on stored responses, in their default Responses-API modes, against every
 * upstream kind (fakes on loopback): the Vercel AI SDK's default OpenAI provider (`openai(id)`,
 * store on, so later turns send `item_reference`s) over several turns with a tool loop, the
 * OpenAI Agents SDK (multi-turn with previousResponseId, tools, a handoff), and the official
 * SDK's `responses.stream` chained with `previous_response_id`. Books checked at the end.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { generateText, isStepCount, tool, type ModelMessage } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses } from "./fakes/openai-responses-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { TEXT_PRICE_USD, textGatewayConfig, textFakeUrls } from "./text-config";

type Upstream = "openai" | "anthropic" | "gemini" | "responses";
const UPSTREAMS: Upstream[] = ["openai", "anthropic", "gemini", "responses"];
const MODEL: Record<Upstream, string> = { openai: "chat-openai", anthropic: "chat-anthropic", gemini: "chat-gemini", responses: "resp-native" };
let server: TestServer;
let key: string;
let email: string;
const fakes = {} as Record<Upstream, FakeTextUpstream>;

beforeAll(async () => {
  [fakes.openai, fakes.anthropic, fakes.gemini, fakes.responses] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGemini(), startFakeOpenAIResponses()]);
  const config = textGatewayConfig(textFakeUrls(fakes));
  config.upstreams.push({ id: "rs", protocol: "openai-responses", baseUrl: fakes.responses.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 });
  config.models.push({ id: "resp-native", kind: "text", upstream: "rs", upstreamModel: "gpt-native", price: TEXT_PRICE_USD, defaultMaxTokens: 100 });
  server = await startTestServer({ config });
  ({ key, email } = await createAccount(server, { usd: 5 }));
  setTracingDisabled(true);
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all(Object.values(fakes).map((f) => f?.close()));
});

const weather = (seen: string[]) =>
  tool({
    description: "Weather of a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      seen.push(city);
      return "sunny";
    },
  });

/** Every item_reference the gateway received must have been resolved: the upstream saw no reference. */
function sentReferences(u: Upstream): number {
  return fakes[u].generationRequests().filter((r) => JSON.stringify(r.body).includes("item_reference")).length;
}

describe.each(UPSTREAMS)("on the %s upstream", (u) => {
  it("Vercel AI SDK default provider (Responses, store on): a tool loop with text before the call, then more turns", async () => {
    const openai = createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` });
    const model = openai(MODEL[u]);
    // Turn 1: the model writes text, then calls the tool; the second step sends item_references.
    fakes[u].reset({ text: "Let me look that up.", toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }], toolCallsUntilResult: true });
    const seen: string[] = [];
    const messages: ModelMessage[] = [{ role: "user", content: "Weather in Paris?" }];
    const t1 = await generateText({ model, messages, tools: { get_weather: weather(seen) }, stopWhen: isStepCount(3) });
    expect(seen).toEqual(["Paris"]);
    expect(t1.text).toBe("Let me look that up.");
    expect(fakes[u].generationRequests()).toHaveLength(2);
    messages.push(...t1.responseMessages);

    // Turns 2 and 3: the history is sent again as item_references to the stored outputs.
    for (const q of ["And tomorrow?", "Thanks!"]) {
      fakes[u].reset({ text: `Answer to ${q}` });
      messages.push({ role: "user", content: q });
      const t = await generateText({ model, messages, tools: { get_weather: weather(seen) } });
      expect(t.text).toBe(`Answer to ${q}`);
      messages.push(...t.responseMessages);
      expect(sentReferences(u)).toBe(0);
      // The upstream saw the whole conversation, the earlier tool call included.
      const body = JSON.stringify(fakes[u].generationRequests()[0]!.body);
      expect(body).toContain("Let me look that up.");
      expect(body).toContain("sunny");
    }
  });

  it("OpenAI Agents SDK (Responses API): multi-turn with previousResponseId, tools and a handoff", async () => {
    setDefaultOpenAIClient(new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 }));
    setOpenAIAPI("responses");
    const seen: string[] = [];
    const getWeather = agentTool({ name: "get_weather", description: "Weather of a city", parameters: z.object({ city: z.string() }), execute: async ({ city }) => (seen.push(city), "sunny") });
    const forecaster = new Agent({ name: "forecaster", instructions: "Answer weather questions.", model: MODEL[u], tools: [getWeather] });
    const triage = new Agent({ name: "triage", instructions: "Hand weather questions over.", model: MODEL[u], handoffs: [forecaster] });

    // The triage agent hands off (a tool call), the forecaster answers.
    fakes[u].reset({ text: "Handled.", toolCalls: [{ name: "transfer_to_forecaster", arguments: "{}" }], toolCallsUntilResult: true });
    const first = await run(triage, "Weather in Paris?");
    expect(first.lastAgent?.name).toBe("forecaster");
    expect(String(first.finalOutput)).toBe("Handled.");

    // Next turn on the stored conversation: the history (handoff included) is replayed upstream.
    fakes[u].reset({ text: "Still sunny." });
    const second = await run(forecaster, "And tomorrow?", { previousResponseId: first.lastResponseId });
    expect(String(second.finalOutput)).toBe("Still sunny.");
    const replayed = JSON.stringify(fakes[u].generationRequests()[0]!.body);
    expect(replayed).toContain("Weather in Paris?");
    expect(replayed).toContain("transfer_to_forecaster");

    // And a tool loop on a new conversation, continued once more.
    fakes[u].reset({ text: "It is sunny in Rome.", toolCalls: [{ name: "get_weather", arguments: '{"city":"Rome"}' }], toolCallsUntilResult: true });
    const third = await run(forecaster, "Weather in Rome?");
    expect(String(third.finalOutput)).toBe("It is sunny in Rome.");
    expect(seen).toEqual(["Rome"]);
    fakes[u].reset({ text: "You asked about Rome." });
    const fourth = await run(forecaster, "What did I ask?", { previousResponseId: third.lastResponseId });
    expect(String(fourth.finalOutput)).toBe("You asked about Rome.");
    expect(JSON.stringify(fakes[u].generationRequests()[0]!.body)).toContain("sunny");
  });

  it("official SDK: responses.stream chained with previous_response_id, then retrieve", async () => {
    const oa = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    fakes[u].reset({ text: "First." });
    const first = await oa.responses.create({ model: MODEL[u], input: "Remember 42." });
    fakes[u].reset({ text: "It was 42." });
    const stream = oa.responses.stream({ model: MODEL[u], input: "What number?", previous_response_id: first.id });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("It was 42.");
    expect(final.previous_response_id).toBe(first.id);
    expect(JSON.stringify(fakes[u].generationRequests()[0]!.body)).toContain("Remember 42.");
    expect((await oa.responses.retrieve(final.id)).output_text).toBe("It was 42.");
  });
});

describe("books", () => {
  it("balance equals the ledger and nothing is left held", async () => {
    const books = await idleBooks(server, email);
    expect(books.ledger).toBe(books.balance);
    expect(books.held).toBe(0);
    expect(books.holds).toBe(0);
  });
});
