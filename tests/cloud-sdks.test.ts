/**
 * The official SDKs (openai, @anthropic-ai/sdk, @google/genai) through each cloud upstream
 * (issue 34): Claude on Bedrock by InvokeModel and by Converse, Claude and Gemini on Vertex AI,
 * a deployment on Azure OpenAI — each SDK's plain and streamed call on each, answers read by the
 * SDK itself, and then the books: one charge per upstream answer, tokens × price, balance = Σ
 * ledger, nothing held. Then the agent frameworks (Vercel AI SDK, OpenAI Agents SDK, each on its
 * default Responses API) run a tool loop through the text-speaking clouds, books checked per run.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { generateText, isStepCount, tool } from "ai";
import OpenAI from "openai";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AZURE_DEPLOYMENT, AZURE_FAKE_KEY, startFakeAzureOpenAI } from "./fakes/azure-openai-upstream";
import { BEDROCK_KEYS, BEDROCK_REGION, startFakeBedrock, type FakeBedrock } from "./fakes/bedrock-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { serviceAccountKey, startFakeGoogleOAuth, startFakeVertex, VERTEX_PROJECT, VERTEX_REGION, type FakeGoogleOAuth } from "./fakes/vertex-upstream";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

// Whole micro-dollars per token: every charge is exact.
const PRICE = { inputPerMTok: 1, outputPerMTok: 3 };
const MODELS = ["claude-bedrock-invoke", "claude-bedrock-converse", "claude-vertex", "gemini-vertex", "gpt-azure"] as const;

let bedrock: FakeBedrock;
let vertex: FakeTextUpstream;
let oauth: FakeGoogleOAuth;
let azure: FakeTextUpstream;
let server: TestServer;
let email: string;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

beforeAll(async () => {
  [bedrock, vertex, oauth, azure] = await Promise.all([startFakeBedrock(), startFakeVertex(), startFakeGoogleOAuth(), startFakeAzureOpenAI({ auth: "api-key" })]);
  bedrock.script = { text: "Hello from Bedrock.", usage: { inputTokens: 40, outputTokens: 9 } };
  const br = (id: string, claudeApi: string) => ({ id, protocol: "bedrock", baseUrl: bedrock.baseUrl, region: BEDROCK_REGION, ...BEDROCK_KEYS, claudeApi, timeoutMs: 10_000 });
  const model = (id: string, upstream: string, upstreamModel: string) => ({ id, kind: "text", upstream, upstreamModel, price: PRICE, maxOutputTokens: 1000 });
  server = await startTestServer({
    config: {
      upstreams: [
        br("br-invoke", "invoke"),
        br("br-converse", "converse"),
        { id: "vx", protocol: "vertex", baseUrl: vertex.baseUrl, project: VERTEX_PROJECT, region: VERTEX_REGION, serviceAccount: serviceAccountKey(oauth.tokenUrl), timeoutMs: 10_000 },
        { id: "az", protocol: "azure-openai", baseUrl: azure.baseUrl, apiKey: AZURE_FAKE_KEY, timeoutMs: 10_000 },
      ],
      models: [
        model("claude-bedrock-invoke", "br-invoke", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        model("claude-bedrock-converse", "br-converse", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        model("claude-vertex", "vx", "claude-sonnet-4-5@20250929"),
        model("gemini-vertex", "vx", "gemini-2.5-pro"),
        model("gpt-azure", "az", AZURE_DEPLOYMENT),
      ],
    },
  });
  const acct = await createAccount(server, { usd: 5 });
  email = acct.email;
  openai = new OpenAI({ apiKey: acct.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: acct.key, baseURL: server.url, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: acct.key, httpOptions: { baseUrl: server.url } });
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all([bedrock?.close(), vertex?.close(), oauth?.close(), azure?.close()]);
});

const prompt = "Say hello.";

describe.each(MODELS)("official SDKs through %s", (model) => {
  it("openai: chat completion, streamed chat with usage, and a Responses call", async () => {
    const c = await openai.chat.completions.create({ model, max_tokens: 100, messages: [{ role: "user", content: prompt }] });
    expect(c.choices[0]!.message.content).toMatch(/\S/);
    expect(c.usage!.prompt_tokens).toBeGreaterThan(0);
    const stream = await openai.chat.completions.create({ model, max_tokens: 100, messages: [{ role: "user", content: prompt }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toMatch(/\S/);
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    const r = await openai.responses.create({ model, max_output_tokens: 100, input: prompt });
    expect(r.output_text).toMatch(/\S/);
  });

  it("@anthropic-ai/sdk: a message and a streamed one", async () => {
    const m = await anthropic.messages.create({ model, max_tokens: 100, messages: [{ role: "user", content: prompt }] });
    expect(m.content.find((b) => b.type === "text")).toBeTruthy();
    const final = await anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: prompt }] }).finalMessage();
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it("@google/genai: generateContent and its stream", async () => {
    const g = await google.models.generateContent({ model, contents: prompt });
    expect(g.text).toMatch(/\S/);
    let text = "";
    for await (const chunk of await google.models.generateContentStream({ model, contents: prompt })) text += chunk.text ?? "";
    expect(text).toMatch(/\S/);
  });
});

describe("the books", () => {
  it("one charge per upstream answer, each tokens × price; balance = Σ ledger; nothing held", async () => {
    if (!usesPostgres()) return;
    const perToken = (input: number, output: number) => input * PRICE.inputPerMTok + output * PRICE.outputPerMTok;
    const expected = [
      ...bedrock.requests.filter((q) => q.answered).map((q) => perToken(q.answered!.inputTokens, q.answered!.outputTokens)),
      ...[vertex, azure].flatMap((f) => f.requests.filter((q) => q.answered).map((q) => perToken(q.answered!.usage!.input, q.answered!.usage!.output))),
    ];
    expect(expected).toHaveLength(MODELS.length * 7);
    const books = await idleBooks(server, email);
    const charges = await server.query<{ delta: string }>(
      `select l.delta_micro_usd as delta from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1 and l.kind = 'charge' order by l.id`,
      [email],
    );
    expect(charges.map((c) => -Number(c.delta)).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(books).toMatchObject({ balance: books.ledger, held: 0, holds: 0 });
    expect(books.balance).toBe(5_000_000 - expected.reduce((a, b) => a + b, 0));
  });
});

/** A tool loop (call → the client runs the tool → answer) through each framework and cloud, on an account of its own. */
describe.each(["claude-vertex", "gemini-vertex", "gpt-azure"] as const)("agent frameworks through %s", (model) => {
  const WEATHER = { name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) };
  const TEXT = "Sunny, 21 °C.";
  const fakeOf = () => (model === "gpt-azure" ? azure : vertex);

  async function books(email: string, usd: number) {
    const f = fakeOf();
    const expected = f.requests.filter((q) => q.answered).map((q) => q.answered!.usage!.input * PRICE.inputPerMTok + q.answered!.usage!.output * PRICE.outputPerMTok);
    // Call, then answer: two upstream answers, the second carrying the tool's result.
    expect(expected).toHaveLength(2);
    expect(JSON.stringify(f.requests[1]!.body)).toContain("Sunny in Paris");
    if (!usesPostgres()) return;
    const b = await idleBooks(server, email);
    const charges = await server.query<{ delta: string }>(
      `select l.delta_micro_usd as delta from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1 and l.kind = 'charge' order by l.id`,
      [email],
    );
    expect(charges.map((c) => -Number(c.delta)).sort((a, c) => a - c)).toEqual(expected.sort((a, c) => a - c));
    expect(b).toMatchObject({ balance: b.ledger, held: 0, holds: 0 });
    expect(b.balance).toBe(usd * 1_000_000 - expected.reduce((a, c) => a + c, 0));
  }

  const weather = (seen: string[]) => async ({ city }: { city: string }) => (seen.push(city), `Sunny in ${city}`);

  it("Vercel AI SDK (@ai-sdk/openai, Responses): generateText with a tool", async () => {
    fakeOf().reset({ text: TEXT, toolCalls: [WEATHER], toolCallsUntilResult: true, usage: { input: 70, output: 12 } });
    const acct = await createAccount(server, { usd: 2 });
    const seen: string[] = [];
    const p = createOpenAI({ apiKey: acct.key, baseURL: `${server.url}/v1` });
    const r = await generateText({
      model: p(model),
      prompt: "Weather in Paris?",
      maxRetries: 0,
      tools: { get_weather: tool({ description: "Weather of a city", inputSchema: z.object({ city: z.string() }), execute: weather(seen) }) },
      stopWhen: isStepCount(3),
    });
    expect(r.text).toBe(TEXT);
    expect(seen).toEqual(["Paris"]);
    await books(acct.email, 2);
  });

  it("OpenAI Agents SDK (Responses): an agent with a tool", async () => {
    fakeOf().reset({ text: TEXT, toolCalls: [WEATHER], toolCallsUntilResult: true, usage: { input: 80, output: 14 } });
    const acct = await createAccount(server, { usd: 2 });
    const seen: string[] = [];
    setTracingDisabled(true);
    // A provider of its own: the default one keeps the first client it made (another account's key).
    const openAIClient = new OpenAI({ apiKey: acct.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient, useResponses: true }) });
    const t = agentTool({ name: "get_weather", description: "Weather of a city", parameters: z.object({ city: z.string() }), execute: weather(seen) });
    const r = await runner.run(new Agent({ name: "weather", model, tools: [t] }), "Weather in Paris?");
    expect(String(r.finalOutput)).toBe(TEXT);
    expect(seen).toEqual(["Paris"]);
    await books(acct.email, 2);
  });
});
