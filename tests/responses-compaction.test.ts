/**
 * Codex's compaction on any upstream (issue 35): `compaction_trigger` as the last input item of
 * POST /v1/responses and POST /v1/responses/compact are answered with exactly one `compaction`
 * item — made by the gateway from one billed summarisation call on chat-completions, Anthropic
 * and Gemini upstreams, passed through to a Responses upstream. A session compacts twice and
 * goes on: each summary comes back to the upstream as text, never the sealed blob; another
 * account cannot open it; the books hold one charge per upstream answer.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses } from "./fakes/openai-responses-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { textFakeUrls, textGatewayConfig } from "./text-config";

type Up = "openai" | "anthropic" | "gemini" | "responses";
let server: TestServer;
const fakes = {} as Record<Up, FakeTextUpstream>;

beforeAll(async () => {
  [fakes.openai, fakes.anthropic, fakes.gemini, fakes.responses] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGemini(), startFakeOpenAIResponses()]);
  const config = textGatewayConfig(textFakeUrls(fakes));
  config.upstreams.push({ id: "rs", protocol: "openai-responses", baseUrl: fakes.responses.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 });
  config.models.push({ ...config.models.find((m) => m.id === "chat-openai")!, id: "chat-responses", upstream: "rs" });
  server = await startTestServer({ config });
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all(Object.values(fakes).map((f) => f?.close()));
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });
const assistant = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
const TOOLS = [{ type: "function", name: "shell", description: "Run a command", parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] } }];

async function post(key: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** The events of an SSE answer, as Codex reads them. */
async function events(r: Response): Promise<any[]> {
  return (await r.text())
    .split("\n\n")
    .map((block) => block.split("\n").find((l) => l.startsWith("data: ")))
    .filter((l): l is string => !!l)
    .map((l) => JSON.parse(l.slice(6)));
}

/** Codex's way: streamed, store false, tools declared, the trigger last; returns the one compaction item. */
async function compactByTrigger(key: string, model: string, input: unknown[]): Promise<any> {
  const r = await post(key, "/v1/responses", { model, instructions: "You are a coding agent.", input: [...input, { type: "compaction_trigger" }], tools: TOOLS, stream: true, store: false });
  expect(r.status).toBe(200);
  const evs = await events(r);
  const done = evs.filter((e) => e.type === "response.output_item.done").map((e) => e.item);
  const compactions = done.filter((i) => i.type === "compaction");
  expect(compactions).toHaveLength(1);
  expect(done).toHaveLength(1);
  expect(evs.at(-1)).toMatchObject({ type: "response.completed", response: { status: "completed", output: [compactions[0]] } });
  expect(compactions[0].encrypted_content).not.toContain("SUMMARY"); // sealed, not readable
  return compactions[0];
}

const lastBody = (up: Up) => JSON.stringify(fakes[up].generationRequests().at(-1)!.body);

describe.each(["openai", "anthropic", "gemini"] as const)("on a %s upstream", (up) => {
  it("a session compacts twice and continues from each summary, billed per upstream answer", async () => {
    const { key, email } = await createAccount(server, { usd: 1 });
    const model = `chat-${up}`;
    const books0 = await idleBooks(server, email);
    const history: unknown[] = [user("The code word is PAPAYA. Remember it."), assistant("Noted.")];

    fakes[up].reset({ text: "SUMMARY-1: the code word is PAPAYA." });
    const first = await compactByTrigger(key, model, history);
    const summarising = lastBody(up);
    expect(summarising).toContain("The code word is PAPAYA");
    expect(summarising).toContain("Compact the conversation above");

    // Codex's new window: the user's messages, then the compaction item; then the next turn.
    fakes[up].reset({ text: "The code word is PAPAYA." });
    const turn = await post(key, "/v1/responses", { model, input: [history[0], first, user("What is the code word?")], store: false });
    expect(turn.status).toBe(200);
    expect(lastBody(up)).toContain("SUMMARY-1: the code word is PAPAYA.");
    expect(lastBody(up)).not.toContain("gwc1.");

    // The second compaction reads the first summary (expanded) and makes a new item.
    fakes[up].reset({ text: "SUMMARY-2: code word PAPAYA; the user also likes MANGO." });
    const second = await compactByTrigger(key, model, [history[0], first, user("I also like MANGO."), assistant("Got it.")]);
    expect(lastBody(up)).toContain("SUMMARY-1: the code word is PAPAYA.");
    expect(second.encrypted_content).not.toBe(first.encrypted_content);

    fakes[up].reset({ text: "PAPAYA and MANGO." });
    const after = await post(key, "/v1/responses", { model, input: [second, user("Both words?")], store: false });
    expect(after.status).toBe(200);
    expect(lastBody(up)).toContain("SUMMARY-2: code word PAPAYA; the user also likes MANGO.");
    expect(lastBody(up)).not.toContain("SUMMARY-1");

    // Four upstream answers, four charges; nothing held.
    expect(fakes[up].generationRequests()).toHaveLength(1); // per reset: the last turn only
    const books = await idleBooks(server, email);
    expect(books.holds).toBe(0);
    expect(books.balance).toBe(books.ledger);
    const [debits] = await server.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1 and l.delta_micro_usd < 0",
      [email],
    );
    const [logs] = await server.query<{ n: number; cost: string }>(
      "select count(*)::int as n, sum(cost_micro_usd)::text as cost from request_logs r join users u on u.account_id = r.account_id where u.email = $1 and r.status = 200",
      [email],
    );
    expect(logs!.n).toBe(4);
    expect(books0.balance - books.balance).toBe(Number(logs!.cost));
    expect(debits!.n).toBeGreaterThanOrEqual(1);
  });
});

describe("compaction", () => {
  it("POST /v1/responses/compact answers the compacted window: the user's messages, then one compaction item", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    fakes.anthropic.reset({ text: "SUMMARY: the user wants a haiku about PAPAYA." });
    const r = await post(key, "/v1/responses/compact", { model: "chat-anthropic", instructions: "You are a coding agent.", input: [user("Write a haiku about PAPAYA."), assistant("Sweet orange flesh…")] });
    expect(r.status).toBe(200);
    expect(Number(r.headers.get("x-gateway-cost-usd"))).toBeGreaterThan(0);
    const body = (await r.json()) as any;
    expect(body).toMatchObject({ object: "response.compaction", output: [user("Write a haiku about PAPAYA."), { type: "compaction" }] });
    expect(body.output.filter((i: any) => i.type === "compaction")).toHaveLength(1);
    expect(body.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });

    // The official SDK continues with the window as input.
    fakes.anthropic.reset({ text: "Here it is." });
    const oa = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const next = await oa.responses.create({ model: "chat-anthropic", input: [...body.output, user("Again, please.")] as never, store: false });
    expect(next.output_text).toBe("Here it is.");
    expect(lastBody("anthropic")).toContain("SUMMARY: the user wants a haiku about PAPAYA.");
  });

  it("another account cannot open a compaction item, and a tampered one is refused", async () => {
    const a = await createAccount(server, { usd: 1 });
    const b = await createAccount(server, { usd: 1 });
    fakes.openai.reset({ text: "SUMMARY: secret plans of account A." });
    const item = await compactByTrigger(a.key, "chat-openai", [user("Secret plans.")]);
    fakes.openai.reset();
    const foreign = await post(b.key, "/v1/responses", { model: "chat-openai", input: [item, user("What were the plans?")] });
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as any).error).toMatchObject({ code: "invalid_request", param: "input[0].encrypted_content" });
    const tampered = { ...item, encrypted_content: item.encrypted_content.slice(0, -4) + "AAAA" };
    expect((await post(a.key, "/v1/responses", { model: "chat-openai", input: [tampered] })).status).toBe(400);
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });

  it("a Responses upstream gets the trigger as sent, and /compact as a trigger (it compacts by itself)", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const item = await compactByTrigger(key, "chat-responses", [user("Hi")]);
    expect(item.encrypted_content).toBe("enc:fake-responses:compaction");
    const sent = fakes.responses.generationRequests().at(-1)!.body;
    expect(sent.input.at(-1)).toEqual({ type: "compaction_trigger" });
    expect(sent.input).toHaveLength(2);

    // /compact on such a model: the upstream's own item, from a trigger request (billed as one).
    const r = await post(key, "/v1/responses/compact", { model: "chat-responses", input: [user("Hi"), assistant("Hello")] });
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).output).toEqual([user("Hi"), { id: expect.any(String), type: "compaction", encrypted_content: "enc:fake-responses:compaction" }]);
    expect(fakes.responses.generationRequests().at(-1)!.body.input.at(-1)).toEqual({ type: "compaction_trigger" });
    expect(Number(r.headers.get("x-gateway-cost-usd"))).toBeGreaterThan(0);
  });
});
