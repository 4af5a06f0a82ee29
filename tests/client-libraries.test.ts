/**
 * The libraries people build with, set up as their own docs say, pointed at the gateway: the
 * Vercel AI SDK (OpenAI chat, Anthropic and Google providers), LangChain (OpenAI, Anthropic,
 * Google) and the OpenAI Agents SDK — each against an OpenAI, an Anthropic and a Gemini upstream
 * (fakes on loopback): a plain answer, a stream, and a tool loop (call → result → answer), with
 * the books checked (one charge per upstream answer).
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { tool as lcTool } from "@langchain/core/tools";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { generateText, isStepCount, streamText, tool } from "ai";
import OpenAI from "openai";
import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses } from "./fakes/openai-responses-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { textGatewayConfig, textFakeUrls } from "./text-config";

let server: TestServer;
let key: string;
let email: string;
const fakes: Record<"openai" | "anthropic" | "gemini" | "responses", FakeTextUpstream> = {} as never;
const TEXT = "Hello from the fake upstream!";
const WEATHER = { name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) };

beforeAll(async () => {
  [fakes.openai, fakes.anthropic, fakes.gemini, fakes.responses] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGemini(), startFakeOpenAIResponses()]);
  const config = textGatewayConfig(textFakeUrls(fakes));
  // The fourth upstream kind: OpenAI's Responses API.
  config.upstreams.push({ id: "rs", protocol: "openai-responses", baseUrl: fakes.responses.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 });
  config.models.push({ ...config.models.find((m) => m.id === "chat-openai")!, id: "chat-responses", upstream: "rs" });
  // @ai-sdk/google sends Google's own tools only for model ids that look like Gemini 2+.
  const like = (id: string, as: string) => ({ ...config.models.find((m) => m.id === id)!, id: as });
  config.models.push(like("chat-anthropic", "gemini-2.5-on-claude"), like("chat-openai", "gemini-2.5-on-gpt"));
  // …and tool images inside the function response (functionResponse.parts) for Gemini 3-like ids.
  config.models.push(like("chat-anthropic", "gemini-3-on-claude"), like("chat-openai", "gemini-3-on-gpt"), like("chat-responses", "gemini-3-on-responses"));
  server = await startTestServer({ config });
  ({ key, email } = await createAccount(server, { usd: 5 }));
  setTracingDisabled(true);
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all(Object.values(fakes).map((f) => f?.close()));
});

type Upstream = keyof typeof fakes;
const UPSTREAMS: Upstream[] = ["openai", "anthropic", "gemini", "responses"];
const modelOf = (u: Upstream) => `chat-${u}`;
const plain = (u: Upstream) => fakes[u].reset();
const loop = (u: Upstream) => fakes[u].reset({ toolCalls: [WEATHER], toolCallsUntilResult: true });
const calls = (u: Upstream) => fakes[u].generationRequests().length;

async function chargeRows(): Promise<number> {
  const [r] = await server.query<{ n: number }>(
    "select count(*)::int as n from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1 and l.delta_micro_usd < 0",
    [email],
  );
  return r!.n;
}

/** Each client: answer, stream, and a tool loop; `calls` = upstream answers it needed. */
interface Client {
  plain(model: string): Promise<string>;
  stream(model: string): Promise<string>;
  toolLoop(model: string, seen: string[]): Promise<string>;
}

const weatherTool = (seen: string[]) => ({
  description: "Weather of a city",
  run: async ({ city }: { city: string }) => {
    seen.push(city);
    return `Sunny in ${city}`;
  },
});

const vercel = (provider: (id: string) => Parameters<typeof generateText>[0]["model"]): Client => ({
  plain: async (m) => (await generateText({ model: provider(m), prompt: "Say hi", maxRetries: 0 })).text,
  async stream(m) {
    let text = "";
    for await (const t of streamText({ model: provider(m), prompt: "Say hi", maxRetries: 0 }).textStream) text += t;
    return text;
  },
  async toolLoop(m, seen) {
    const w = weatherTool(seen);
    const r = await generateText({
      model: provider(m),
      prompt: "Weather in Paris?",
      maxRetries: 0,
      tools: { get_weather: tool({ description: w.description, inputSchema: z.object({ city: z.string() }), execute: w.run }) },
      stopWhen: isStepCount(3),
    });
    return r.text;
  },
});

const langchain = (make: (model: string) => ChatOpenAI | ChatAnthropic | ChatGoogleGenerativeAI): Client => ({
  plain: async (m) => String((await make(m).invoke("Say hi")).content),
  async stream(m) {
    let text = "";
    for await (const c of await make(m).stream("Say hi")) text += typeof c.content === "string" ? c.content : c.content.map((p) => ("text" in p ? p.text : "")).join("");
    return text;
  },
  async toolLoop(m, seen) {
    const w = weatherTool(seen);
    const t = lcTool(w.run, { name: "get_weather", description: w.description, schema: z.object({ city: z.string() }) });
    const chat = make(m).bindTools([t]);
    const history: Parameters<typeof chat.invoke>[0] = [{ role: "user", content: "Weather in Paris?" }];
    const first = await chat.invoke(history);
    expect(first.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    const result = await t.invoke(first.tool_calls![0]!);
    const second = await chat.invoke([...(history as never[]), first, result]);
    return String(second.content);
  },
});

const agents: Client = {
  async plain(m) {
    return String((await run(new Agent({ name: "a", instructions: "Be brief.", model: m }), "Say hi")).finalOutput);
  },
  async stream(m) {
    const r = await run(new Agent({ name: "a", model: m }), "Say hi", { stream: true });
    let text = "";
    for await (const t of r.toTextStream()) text += t;
    await r.completed;
    return text;
  },
  async toolLoop(m, seen) {
    const w = weatherTool(seen);
    const t = agentTool({ name: "get_weather", description: w.description, parameters: z.object({ city: z.string() }), execute: w.run });
    return String((await run(new Agent({ name: "a", model: m, tools: [t] }), "Weather in Paris?")).finalOutput);
  },
};

const CLIENTS: Record<string, () => Client> = {
  "Vercel AI SDK · @ai-sdk/openai (chat)": () => {
    const p = createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` });
    return vercel((id) => p.chat(id));
  },
  "Vercel AI SDK · @ai-sdk/anthropic": () => vercel(createAnthropic({ apiKey: key, baseURL: `${server.url}/v1` })),
  "Vercel AI SDK · @ai-sdk/google": () => vercel(createGoogleGenerativeAI({ apiKey: key, baseURL: `${server.url}/v1beta` })),
  "LangChain · @langchain/openai": () => langchain((model) => new ChatOpenAI({ model, apiKey: key, maxRetries: 0, configuration: { baseURL: `${server.url}/v1` } })),
  "LangChain · @langchain/anthropic": () => langchain((model) => new ChatAnthropic({ model, apiKey: key, maxRetries: 0, anthropicApiUrl: server.url })),
  "LangChain · @langchain/google-genai": () => langchain((model) => new ChatGoogleGenerativeAI({ model, apiKey: key, maxRetries: 0, baseUrl: server.url })),
  "OpenAI Agents SDK (chat completions)": () => {
    setDefaultOpenAIClient(new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 }));
    setOpenAIAPI("chat_completions");
    return agents;
  },
};

describe.each(Object.keys(CLIENTS))("%s", (name) => {
  it.each(UPSTREAMS)("answers, streams and runs a tool loop on the %s upstream", async (u) => {
    const client = CLIENTS[name]!();
    const model = modelOf(u);
    const charges = await chargeRows();
    plain(u);
    expect(await client.plain(model)).toBe(TEXT);
    expect(calls(u)).toBe(1);
    plain(u);
    expect(await client.stream(model)).toBe(TEXT);
    expect(calls(u)).toBe(1);
    loop(u);
    const seen: string[] = [];
    expect(await client.toolLoop(model, seen)).toBe(TEXT);
    expect(seen).toEqual(["Paris"]);
    // Call, then answer: two upstream answers, and the second carried the tool's result.
    expect(calls(u)).toBe(2);
    expect(JSON.stringify(fakes[u].generationRequests()[1]!.body)).toContain("Sunny in Paris");
    // One charge per upstream answer (settlements may commit just after the reply), and the
    // balance is its ledger.
    const books = await idleBooks(server, email);
    for (let i = 0; i < 50 && (await chargeRows()) - charges < 4; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await chargeRows()) - charges).toBe(4);
    expect(books).toMatchObject({ balance: books.ledger, held: 0, holds: 0 });
  });
});

/**
 * Provider tools of the Vercel AI SDK (tools the vendor runs, or with a vendor-defined schema)
 * against each upstream, per docs/conversion-policy.md: web search is mapped to the target's own
 * (Anthropic's server tool, Gemini's googleSearch), dropped and named where the target has none
 * (OpenAI chat); Anthropic-defined client tools pass through to Anthropic and are a 400 naming
 * them elsewhere.
 */
describe("Vercel AI SDK provider tools", () => {
  const DROPPED = "x-gateway-dropped-params";
  const lastTools = (u: Upstream) => fakes[u].generationRequests().at(-1)!.body.tools as any[];

  it("@ai-sdk/openai (Responses) openai.tools.webSearch: Anthropic's web search, Gemini's googleSearch, named for an OpenAI chat upstream", async () => {
    const p = createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` });
    const ask = (u: Upstream) => generateText({ model: p.responses(modelOf(u)), prompt: "News?", maxRetries: 0, tools: { web_search: p.tools.webSearch({}) } });
    plain("anthropic");
    expect((await ask("anthropic")).text).toBe(TEXT);
    expect(lastTools("anthropic")).toContainEqual({ type: "web_search_20250305", name: "web_search" });
    plain("gemini");
    expect((await ask("gemini")).text).toBe(TEXT);
    expect(lastTools("gemini")).toContainEqual({ googleSearch: {} });
    plain("openai");
    const r = await ask("openai");
    expect(r.text).toBe(TEXT);
    expect(r.response.headers?.[DROPPED]).toBe("web_search");
    expect(fakes.openai.generationRequests().at(-1)!.body.tools).toBeUndefined();
  });

  it("@ai-sdk/anthropic webSearch_20250305 passes through to Anthropic and maps to googleSearch; bash_20250124 elsewhere is a 400 naming it", async () => {
    const p = createAnthropic({ apiKey: key, baseURL: `${server.url}/v1` });
    const search = { web_search: p.tools.webSearch_20250305({ maxUses: 2 }) };
    plain("anthropic");
    expect((await generateText({ model: p(modelOf("anthropic")), prompt: "News?", maxRetries: 0, tools: search })).text).toBe(TEXT);
    expect(lastTools("anthropic")).toContainEqual({ type: "web_search_20250305", name: "web_search", max_uses: 2 });
    plain("gemini");
    const g = await generateText({ model: p(modelOf("gemini")), prompt: "News?", maxRetries: 0, tools: search });
    expect(g.text).toBe(TEXT);
    expect(lastTools("gemini")).toContainEqual({ googleSearch: {} });
    const bash = { bash: p.tools.bash_20250124({ execute: async () => "ok" }) };
    plain("anthropic");
    await generateText({ model: p(modelOf("anthropic")), prompt: "ls", maxRetries: 0, tools: bash });
    expect(lastTools("anthropic")).toContainEqual({ type: "bash_20250124", name: "bash" });
    plain("openai");
    const err = await generateText({ model: p(modelOf("openai")), prompt: "ls", maxRetries: 0, tools: bash }).catch((e: unknown) => e as { statusCode?: number; message?: string });
    expect(err).toMatchObject({ statusCode: 400 });
    expect((err as { message: string }).message).toMatch(/^tools\[0\] \(bash_20250124\)/);
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });

  it("@ai-sdk/google google.tools.googleSearch: Anthropic's web search; named for an OpenAI chat upstream", async () => {
    const p = createGoogleGenerativeAI({ apiKey: key, baseURL: `${server.url}/v1beta` });
    const tools = { google_search: p.tools.googleSearch({}) };
    plain("anthropic");
    expect((await generateText({ model: p("gemini-2.5-on-claude"), prompt: "News?", maxRetries: 0, tools })).text).toBe(TEXT);
    expect(lastTools("anthropic")).toContainEqual({ type: "web_search_20250305", name: "web_search" });
    plain("openai");
    const r = await generateText({ model: p("gemini-2.5-on-gpt"), prompt: "News?", maxRetries: 0, tools });
    expect(r.text).toBe(TEXT);
    expect(r.response.headers?.[DROPPED]).toBe("tools[0].googleSearch");
  });
});

describe("Vercel AI SDK file parts (PDF) reach another vendor's model", () => {
  const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n");
  const b64 = PDF.toString("base64");
  const ask = (model: Parameters<typeof generateText>[0]["model"]) =>
    generateText({ model, maxRetries: 0, messages: [{ role: "user", content: [{ type: "text", text: "Summarise" }, { type: "file", data: PDF, mediaType: "application/pdf", filename: "r.pdf" }] }] });
  const last = (u: Upstream) => JSON.stringify(fakes[u].generationRequests().at(-1)!.body);

  it("@ai-sdk/anthropic → OpenAI chat file, @ai-sdk/openai chat → Anthropic document, @ai-sdk/google → OpenAI, @ai-sdk/openai (Responses) → Gemini", async () => {
    plain("openai");
    expect((await ask(createAnthropic({ apiKey: key, baseURL: `${server.url}/v1` })(modelOf("openai")))).text).toBe(TEXT);
    expect(last("openai")).toContain(`"file_data":"data:application/pdf;base64,${b64}"`);
    plain("anthropic");
    expect((await ask(createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` }).chat(modelOf("anthropic")))).text).toBe(TEXT);
    expect(last("anthropic")).toContain(`"source":{"type":"base64","media_type":"application/pdf","data":"${b64}"}`);
    plain("openai");
    expect((await ask(createGoogleGenerativeAI({ apiKey: key, baseURL: `${server.url}/v1beta` })(modelOf("openai")))).text).toBe(TEXT);
    expect(last("openai")).toContain(`data:application/pdf;base64,${b64}`);
    plain("gemini");
    expect((await ask(createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` })(modelOf("gemini")))).text).toBe(TEXT);
    expect(last("gemini")).toContain(`"inlineData":{"mimeType":"application/pdf","data":"${b64}"}`);
  });
});

describe("a Claude tool call without arguments, streamed", () => {
  it("reaches the openai SDK's stream helpers (chat and Responses) and the Agents SDK as JSON '{}'", async () => {
    const oa = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const now = { type: "function" as const, function: { name: "now", description: "The time", parameters: { type: "object", properties: {} } } };
    fakes.anthropic.reset({ text: "", toolCalls: [{ name: "now", arguments: "{}" }] });
    const chat = await oa.chat.completions.stream({ model: modelOf("anthropic"), messages: [{ role: "user", content: "Time?" }], tools: [now] }).finalChatCompletion();
    expect(chat.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: "now", arguments: "{}" } });
    fakes.anthropic.reset({ text: "", toolCalls: [{ name: "now", arguments: "{}" }] });
    const rs = await oa.responses.stream({ model: modelOf("anthropic"), input: "Time?", tools: [{ type: "function", name: "now", parameters: { type: "object", properties: {} }, strict: false }] }).finalResponse();
    expect(rs.output.find((o) => o.type === "function_call")).toMatchObject({ name: "now", arguments: "{}" });
    // The Agents SDK runs the tool (it parses the arguments) and answers.
    fakes.anthropic.reset({ toolCalls: [{ name: "now", arguments: "{}" }], toolCallsUntilResult: true });
    setDefaultOpenAIClient(oa);
    setOpenAIAPI("chat_completions");
    const ran: string[] = [];
    const t = agentTool({ name: "now", description: "The time", parameters: z.object({}), execute: async () => (ran.push("now"), "noon") });
    const r = await run(new Agent({ name: "a", model: modelOf("anthropic"), tools: [t] }), "Time?", { stream: true });
    await r.completed;
    expect(ran).toEqual(["now"]);
    expect(String(r.finalOutput)).toBe(TEXT);
  });
});

describe("model listings in each SDK's own shape", () => {
  it("@anthropic-ai/sdk lists and retrieves models in Anthropic's shape (text models only)", async () => {
    const a = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of a.models.list()) {
      expect(m).toMatchObject({ type: "model", display_name: m.id });
      expect(Number.isNaN(Date.parse(m.created_at))).toBe(false);
      ids.push(m.id);
    }
    expect(ids).toEqual(expect.arrayContaining(["chat-openai", "chat-anthropic", "chat-gemini", "chat-responses"]));
    expect(await a.models.retrieve("chat-gemini")).toMatchObject({ type: "model", id: "chat-gemini" });
  });
});

/**
 * The README's setup lines are the ones tested above (key and URL aside): a README edit that
 * breaks a client fails here.
 */
describe("README client snippets", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  it.each([
    'new OpenAI({ apiKey: "sk-…", baseURL: "http://localhost:3000/v1" })',
    'new Anthropic({ apiKey: "sk-…", baseURL: "http://localhost:3000" })',
    'new GoogleGenAI({ apiKey: "sk-…", httpOptions: { baseUrl: "http://localhost:3000" } })',
    'createOpenAI({ apiKey: "sk-…", baseURL: "http://localhost:3000/v1" })',
    'createAnthropic({ apiKey: "sk-…", baseURL: "http://localhost:3000/v1" })',
    'createGoogleGenerativeAI({ apiKey: "sk-…", baseURL: "http://localhost:3000/v1beta" })',
    'new ChatOpenAI({ model: "demo-chat", apiKey: "sk-…", configuration: { baseURL: "http://localhost:3000/v1" } })',
    'new ChatAnthropic({ model: "demo-chat", apiKey: "sk-…", anthropicApiUrl: "http://localhost:3000" })',
    'new ChatGoogleGenerativeAI({ model: "demo-chat", apiKey: "sk-…", baseUrl: "http://localhost:3000" })',
    'setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-…", baseURL: "http://localhost:3000/v1" }))',
  ])("%s", (line) => expect(readme).toContain(line));

  it("the README's Vercel AI SDK default (Responses) runs a plain answer, a stream and a tool loop on every upstream", async () => {
    const p = createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` });
    const client = vercel((id) => p(id));
    for (const u of UPSTREAMS) {
      plain(u);
      expect(await client.plain(modelOf(u))).toBe(TEXT);
      plain(u);
      expect(await client.stream(modelOf(u))).toBe(TEXT);
      loop(u);
      const seen: string[] = [];
      expect(await client.toolLoop(modelOf(u), seen)).toBe(TEXT);
      expect(seen).toEqual(["Paris"]);
    }
  });
});

/**
 * A streamed Messages answer converted from another vendor (docs/conversion-policy.md, "Usage in
 * a Messages stream"): message_delta carries the whole usage, cumulative, as Anthropic's own
 * stream does, and message_start the upstream's prompt count wherever its first event has it.
 * LangChain's ChatAnthropic takes the prompt count from message_start alone and adds up the
 * output counts of message_start and message_delta.
 */
describe("Messages streams converted from another vendor report its token counts", () => {
  const lcUsage = async (u: Upstream) => {
    const chat = new ChatAnthropic({ model: modelOf(u), apiKey: key, maxRetries: 0, anthropicApiUrl: server.url });
    let total: Awaited<ReturnType<typeof chat.invoke>> | undefined;
    for await (const c of await chat.stream("Say hi")) total = total ? (total.concat(c) as never) : c;
    return total!.usage_metadata!;
  };

  it("LangChain reports Gemini's own counts (its first chunk has the prompt count), cache reads included", async () => {
    fakes.gemini.reset({ usage: { input: 23, output: 7, cacheRead: 5 } });
    expect(await lcUsage("gemini")).toMatchObject({ input_tokens: 23, output_tokens: 7, total_tokens: 30, input_token_details: { cache_read: 5 } });
  });

  it.each(["openai", "responses"] as const)("%s upstream: the final usage is the vendor's (Anthropic SDK), LangChain's output count too", async (u) => {
    fakes[u].reset({ usage: { input: 23, output: 7 } });
    const anthropic = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const final = await anthropic.messages.stream({ model: modelOf(u), max_tokens: 50, messages: [{ role: "user", content: "Say hi" }] }).finalMessage();
    expect(final.usage).toMatchObject({ input_tokens: 23, output_tokens: 7 });
    fakes[u].reset({ usage: { input: 23, output: 7 } });
    // OpenAI reports the prompt count only at the end: message_start has the gateway's estimate,
    // which is what LangChain shows as the prompt count (never a sum with the final one).
    const lc = await lcUsage(u);
    expect(lc.output_tokens).toBe(7);
    expect(lc.input_tokens).toBeGreaterThan(0);
    expect(lc.input_tokens).toBeLessThan(23);
  });
});

/**
 * Claude's thinking reaches Vercel AI SDK apps as reasoning (docs/conversion-policy.md, "Reasoning"):
 * through the OpenAI provider's Responses model (reasoning items with their summary), and on chat
 * completions as `reasoning_content`, the field OpenAI-compatible readers take (`reasoning_content
 * ?? reasoning`). @ai-sdk/openai's `.chat()` model reads no reasoning field of any server (OpenAI's
 * chat API has none), so an app wanting Claude's reasoning over chat completions uses the
 * Responses model or an OpenAI-compatible provider.
 */
describe("reasoning from an Anthropic upstream reaches the Vercel AI SDK", () => {
  const THOUGHT = "The user greets me; I greet back.";
  const reasoning = { openai: { forceReasoning: true, reasoningEffort: "low", reasoningSummary: "auto" } };

  it("@ai-sdk/openai Responses model: reasoningText, plain and streamed", async () => {
    const p = createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` });
    fakes.anthropic.reset({ thinking: { thinking: THOUGHT, signature: "sig-1" } });
    const r = await generateText({ model: p.responses(modelOf("anthropic")), prompt: "Say hi", maxRetries: 0, maxOutputTokens: 8000, providerOptions: reasoning });
    expect(r.text).toBe(TEXT);
    expect(r.reasoningText).toBe(THOUGHT);
    expect(fakes.anthropic.generationRequests().at(-1)!.body.thinking).toMatchObject({ type: "enabled" });
    fakes.anthropic.reset({ thinking: { thinking: THOUGHT, signature: "sig-1" } });
    const s = streamText({ model: p.responses(modelOf("anthropic")), prompt: "Say hi", maxRetries: 0, maxOutputTokens: 8000, providerOptions: reasoning });
    let streamed = "";
    for await (const part of s.fullStream) if (part.type === "reasoning-delta") streamed += part.text;
    expect(streamed).toBe(THOUGHT);
  });

  it("chat completions: the answer carries reasoning_content, which the .chat() model does not read", async () => {
    const bodies: any[] = [];
    const tee: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      bodies.push(await res.clone().json());
      return res;
    };
    const p = createOpenAI({ apiKey: key, baseURL: `${server.url}/v1`, fetch: tee });
    fakes.anthropic.reset({ thinking: { thinking: THOUGHT, signature: "sig-1" } });
    const r = await generateText({ model: p.chat(modelOf("anthropic")), prompt: "Say hi", maxRetries: 0, maxOutputTokens: 8000, providerOptions: { openai: { forceReasoning: true, reasoningEffort: "low" } } });
    expect(r.text).toBe(TEXT);
    expect(fakes.anthropic.generationRequests().at(-1)!.body.thinking).toMatchObject({ type: "enabled" });
    expect(bodies[0].choices[0].message.reasoning_content).toBe(THOUGHT);
  });
});

/**
 * An image read through a tool (docs/conversion-policy.md, "What a tool read") on another
 * vendor's model: the AI SDK's toModelOutput through @ai-sdk/google (functionResponse.parts), and
 * Claude Code's Read through @anthropic-ai/sdk, each reaching the upstream in its own form.
 */
describe("a tool's image reaches another vendor's model", () => {
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const screenshot = tool({
    description: "Take a screenshot",
    inputSchema: z.object({}),
    execute: async () => PNG,
    toModelOutput: ({ output }) => ({ type: "content", value: [{ type: "text", text: "Screenshot taken" }, { type: "file", mediaType: "image/png", data: { type: "data", data: output } }] }),
  });
  const SHOT = { name: "screenshot", arguments: "{}" };

  it.each([
    ["gemini-3-on-claude", "anthropic"],
    ["gemini-3-on-gpt", "openai"],
    ["gemini-3-on-responses", "responses"],
  ] as const)("@ai-sdk/google toModelOutput image → %s", async (model, u) => {
    fakes[u].reset({ toolCalls: [SHOT], toolCallsUntilResult: true });
    const google = createGoogleGenerativeAI({ apiKey: key, baseURL: `${server.url}/v1beta` });
    const r = await generateText({ model: google(model), prompt: "What is on screen?", maxRetries: 0, tools: { screenshot }, stopWhen: isStepCount(3) });
    expect(r.text).toBe(TEXT);
    const second = fakes[u].generationRequests()[1]!;
    expect(second.refused).toBeUndefined();
    const sent = JSON.stringify(second.body);
    if (u === "anthropic") expect(second.body.messages.at(-1).content[0].content).toContainEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } });
    else if (u === "responses") expect(second.body.input.at(-1).output).toContainEqual({ type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" });
    else expect(second.body.messages.at(-1).content).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } });
    expect(sent).toContain(PNG);
  });

  it.each(["gemini", "openai", "responses"] as const)("@anthropic-ai/sdk tool_result image (Claude Code's Read) → %s", async (u) => {
    fakes[u].reset();
    const anthropic = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const msg = await anthropic.messages.create({
      model: modelOf(u),
      max_tokens: 50,
      tools: [{ name: "Read", input_schema: { type: "object", properties: { file_path: { type: "string" } } } }],
      messages: [
        { role: "user", content: "What does shot.png show?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "shot.png" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }] }] },
      ],
    });
    expect(msg.content).toEqual([{ type: "text", text: TEXT }]);
    const last = fakes[u].generationRequests().at(-1)!;
    expect(last.refused).toBeUndefined();
    expect(JSON.stringify(last.body)).toContain(PNG);
  });
});
