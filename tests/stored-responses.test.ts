/**
 * Stored Responses (issue 15) against the real server with the official `openai` SDK: stored by
 * default, retrieve/delete/input_items, account scoping, encryption at rest, store:false and the
 * account switch, retention, previous_response_id and item_reference on converted upstreams,
 * the replayed-item count on the log row, clear errors, and a next turn sent to a second
 * instance at once.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { signUp } from "./console-helpers";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { textGatewayConfig, textFakeUrls } from "./text-config";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
const client = (key: string, s: TestServer = server) => new OpenAI({ apiKey: key, baseURL: `${s.url}/v1`, maxRetries: 0 });
const config = () =>
  textGatewayConfig(textFakeUrls(fakes));

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  // A 1 MiB text body limit, so that an oversized replayed history is quick to build.
  server = await startTestServer({ config: config(), env: { TEXT_BODY_LIMIT_MB: "1" } });
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

async function logRow(requestId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 100; i++) {
    const rows = await server.query("select * from request_logs where request_id = $1", [requestId]);
    if (rows[0]) return rows[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no request log row for ${requestId}`);
}

async function until(ok: () => Promise<boolean>) {
  for (let i = 0; i < 100 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 50));
}

async function status(key: string, method: string, path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  return { status: r.status, body: await r.json() };
}

describe("stored responses", () => {
  it("stores by default: retrieve, input_items (paginated), delete; store:false stores nothing", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const oa = client(key);
    fakes.openai.reset({ text: "Paris is the capital." });
    const r = await oa.responses.create({ model: "chat-openai", instructions: "Be brief.", input: [
      { role: "user", content: "one" },
      { role: "assistant", content: "two" },
      { role: "user", content: "What is the capital of France?" },
    ] });
    expect((r as any).store).toBe(true);
    const got = await oa.responses.retrieve(r.id);
    expect(got.id).toBe(r.id);
    expect(got.output_text).toBe("Paris is the capital.");
    expect(got.status).toBe("completed");

    const all = await oa.responses.inputItems.list(r.id);
    expect(all.data.map((i: any) => i.content[0].text)).toEqual(["What is the capital of France?", "two", "one"]); // desc by default
    expect(all.data.every((i: any) => typeof i.id === "string" && i.type === "message")).toBe(true);
    const asc = await oa.responses.inputItems.list(r.id, { order: "asc", limit: 2 });
    expect(asc.data.map((i: any) => i.content[0].text)).toEqual(["one", "two"]);
    expect(asc.has_more).toBe(true);
    const raw = await status(key, "GET", `/v1/responses/${r.id}/input_items?order=asc&limit=2&after=${asc.data[1]!.id}`);
    expect(raw.body).toMatchObject({ object: "list", has_more: false, first_id: all.data[0]!.id, last_id: all.data[0]!.id });
    // The SDK's auto-pagination walks the pages with `after`.
    const walked: string[] = [];
    for await (const item of oa.responses.inputItems.list(r.id, { limit: 1 })) walked.push((item as any).id);
    expect(walked).toEqual(all.data.map((i: any) => i.id));
    expect((await status(key, "GET", `/v1/responses/${r.id}/input_items?limit=0`)).status).toBe(400);

    const del: unknown = await oa.responses.delete(r.id);
    expect(del).toEqual({ id: r.id, object: "response", deleted: true });
    expect((await status(key, "GET", `/v1/responses/${r.id}`)).status).toBe(404);
    expect((await status(key, "DELETE", `/v1/responses/${r.id}`)).status).toBe(404);

    const unstored = await oa.responses.create({ model: "chat-openai", input: "hi", store: false });
    expect((unstored as any).store).toBe(false);
    const miss = await status(key, "GET", `/v1/responses/${unstored.id}`);
    expect(miss.status).toBe(404);
    expect(miss.body.error.message).toContain(unstored.id);
  });

  it("is scoped to the account and sealed at rest", async () => {
    const a = await createAccount(server, { usd: 1 });
    const b = await createAccount(server, { usd: 1 });
    const secret = `secret-prompt-${Date.now()}`;
    const r = await client(a.key).responses.create({ model: "chat-anthropic", input: secret });
    // Another account's id is a 404, exactly as an unknown one.
    const foreign = await status(b.key, "GET", `/v1/responses/${r.id}`);
    const unknown = await status(b.key, "GET", `/v1/responses/resp_doesnotexist`);
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.error.code).toBe(unknown.body.error.code);
    expect((await status(b.key, "GET", `/v1/responses/${r.id}/input_items`)).status).toBe(404);
    expect((await status(b.key, "DELETE", `/v1/responses/${r.id}`)).status).toBe(404);
    const chained = await client(b.key).responses.create({ model: "chat-anthropic", input: "next", previous_response_id: r.id }).catch((e) => e);
    expect(chained.status).toBe(404);
    expect(chained.message).toContain(r.id);
    expect((await status(a.key, "GET", `/v1/responses/${r.id}`)).status).toBe(200); // still there for its owner

    await until(async () => (await server.query("select 1 from stored_responses where id = $1", [r.id])).length > 0);
    const [row] = await server.query<{ sealed: string; item_ids: string[] }>("select sealed, item_ids from stored_responses where id = $1", [r.id]);
    expect(row!.sealed.startsWith("v1.")).toBe(true);
    expect(row!.sealed).not.toContain(secret);
    expect(row!.sealed).not.toContain("Hello from the fake");
  });

  it("continues with previous_response_id on a converted upstream: history replayed, instructions not, items counted", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const oa = client(key);
    fakes.anthropic.reset({ text: "First answer." });
    const first = await oa.responses.create({ model: "chat-anthropic", instructions: "Speak like a pirate.", input: "My name is Ada." });
    fakes.anthropic.reset({ text: "Your name is Ada.", usage: { input: 40, output: 5 } });
    const { data: second, response } = await oa.responses.create({ model: "chat-anthropic", input: "What is my name?", previous_response_id: first.id }).withResponse();
    expect(second.previous_response_id).toBe(first.id);
    const sent = fakes.anthropic.generationRequests()[0]!.body;
    expect(sent.system).toBeUndefined(); // instructions are not carried over
    expect(sent.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "My name is Ada." }] },
      { role: "assistant", content: [{ type: "text", text: "First answer." }] },
      { role: "user", content: [{ type: "text", text: "What is my name?" }] },
    ]);
    const row = await logRow(response.headers.get("x-request-id")!);
    expect(row.replayed_items).toBe(2);
    expect(Number(row.input_tokens)).toBe(40); // replayed history is billed as the upstream reports it

    // The chain goes on: the third turn replays all four items before it.
    fakes.anthropic.reset({ text: "Bye." });
    const third = await oa.responses.create({ model: "chat-anthropic", input: "Bye", previous_response_id: second.id, stream: true });
    let done: any;
    for await (const ev of third) if (ev.type === "response.completed") done = ev.response;
    expect(done.previous_response_id).toBe(second.id);
    expect(fakes.anthropic.generationRequests()[0]!.body.messages).toHaveLength(5);
    const items = await oa.responses.inputItems.list(done.id, { order: "asc" });
    expect(items.data.map((i: any) => i.content[0].text)).toEqual(["My name is Ada.", "First answer.", "What is my name?", "Your name is Ada.", "Bye"]);
    // A streamed response is stored too, and shows store in its events.
    expect((await oa.responses.retrieve(done.id)).output_text).toBe("Bye.");
  });

  it("resolves item_reference to the account's stored items (tool loop), on any upstream", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const oa = client(key);
    fakes.gemini.reset({ text: "Let me check.", toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] });
    const tools = [{ type: "function" as const, name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }];
    const first = await oa.responses.create({ model: "chat-gemini", input: "Weather in Paris?", tools });
    const msg = first.output.find((o) => o.type === "message")!;
    const call = first.output.find((o) => o.type === "function_call") as any;
    fakes.openai.reset({ text: "It is sunny." });
    const { response } = await oa.responses
      .create({
        model: "chat-openai",
        tools,
        input: [
          { role: "user", content: "Weather in Paris?" },
          { type: "item_reference", id: msg.id! },
          { type: "item_reference", id: call.id },
          { type: "function_call_output", call_id: call.call_id, output: "sunny" },
        ],
      })
      .withResponse();
    const sent = fakes.openai.generationRequests()[0]!.body;
    expect(sent.messages[1]).toMatchObject({ role: "assistant", content: "Let me check.", tool_calls: [{ id: call.call_id, function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] });
    expect(sent.messages[2]).toMatchObject({ role: "tool", tool_call_id: call.call_id, content: "sunny" });
    expect((await logRow(response.headers.get("x-request-id")!)).replayed_items).toBe(2);

    // Unknown and foreign references are 404s naming the id; a response id is not an item.
    const other = await createAccount(server, { usd: 1 });
    for (const k of [key, other.key]) {
      const id = k === key ? "msg_unknown" : msg.id!;
      const e = await client(k).responses.create({ model: "chat-openai", input: [{ type: "item_reference", id }] }).catch((x) => x);
      expect(e.status).toBe(404);
      expect(e.message).toContain(id);
    }
    const e = await oa.responses.create({ model: "chat-openai", input: [{ type: "item_reference", id: first.id }] }).catch((x) => x);
    expect(e.status).toBe(400);
    expect(e.message).toContain("previous_response_id");
  });

  it("honours the account switch and deletes after the retention period", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    await server.query("update accounts set store_responses = false where id = (select account_id from users where email = $1)", [email]);
    const key2 = (await server.admin("key", "create", "--email", email)).stdout.at(-1)!;
    server.secrets.add(key2);
    const r = await client(key2).responses.create({ model: "chat-openai", input: "hi" });
    expect((r as any).store).toBe(false);
    expect((await status(key2, "GET", `/v1/responses/${r.id}`)).status).toBe(404);
    expect((await server.query("select count(*)::int as n from stored_responses where id = $1", [r.id]))[0]!.n).toBe(0);

    const kept = await client(key).responses.create({ model: "chat-openai", input: "hi", store: true }).catch(() => null);
    void kept; // the first key may still be cached as storing; what matters is the fresh one above
    const other = await createAccount(server, { usd: 1 });
    const old = await client(other.key).responses.create({ model: "chat-openai", input: "old" });
    await until(async () => (await server.query("select 1 from stored_responses where id = $1", [old.id])).length > 0); // written just after the reply
    await server.query("update stored_responses set created_at = now() - interval '31 days' where id = $1", [old.id]);
    expect((await status(other.key, "GET", `/v1/responses/${old.id}`)).status).toBe(404);
  });

  it("the console switch turns storing off for every key of the account at once, and shows the retention", async () => {
    const s = await signUp(server);
    const got = await s.json("/api/console/billing/responses-storage");
    expect(got.body).toEqual({ storeResponses: true, responsesRetentionDays: 30 });
    await server.admin("credit", "--email", s.email, "--usd", "1");
    const key = (await server.admin("key", "create", "--email", s.email)).stdout.at(-1)!;
    server.secrets.add(key);
    expect(((await client(key).responses.create({ model: "chat-openai", input: "hi" })) as any).store).toBe(true); // the key is cached now
    const put = await s.json("/api/console/billing/responses-storage", { method: "PUT", body: { storeResponses: false } });
    expect(put.body.storeResponses).toBe(false);
    const r = await client(key).responses.create({ model: "chat-openai", input: "hi" });
    expect((r as any).store).toBe(false);
    expect((await status(key, "GET", `/v1/responses/${r.id}`)).status).toBe(404);
    expect((await s.json("/api/console/billing/responses-storage", { method: "PUT", body: { storeResponses: "no" } })).status).toBe(400);
  });

  it("refuses a bad previous_response_id clearly, and a replayed history over the body limit", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const big = "x ".repeat(300_000); // 600 kB: each request fits, both together do not
    const first = await client(key).responses.create({ model: "chat-openai", input: big });
    fakes.openai.reset();
    const tooBig = await client(key).responses.create({ model: "chat-openai", input: big, previous_response_id: first.id }).catch((x) => x);
    expect(tooBig.status).toBe(400);
    expect(tooBig.code).toBe("history_too_large");
    expect(fakes.openai.generationRequests()).toHaveLength(0);
    const e = await client(key).responses.create({ model: "chat-openai", input: "hi", previous_response_id: "resp_nope" }).catch((x) => x);
    expect(e.status).toBe(404);
    expect(e.message).toContain("resp_nope");
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });

  it("answers GET /v1/responses that cannot be upgraded with 426 at once (Codex then falls back to HTTP)", async () => {
    const r = await fetch(`${server.url}/v1/responses`); // no key: the answer must not depend on one
    expect(r.status).toBe(426);
    expect(r.headers.get("upgrade")).toBe("websocket");
    expect(((await r.json()) as any).error).toMatchObject({ code: "websocket_upgrade_required" });
  });

  it("a next turn sent at once to another instance finds the response", async () => {
    const second = await startTestServer({ config: config(), shareWith: server, env: { TEXT_BODY_LIMIT_MB: "1" } });
    try {
      const { key } = await createAccount(server, { usd: 1 });
      for (let i = 0; i < 5; i++) {
        const r = await client(key).responses.create({ model: "chat-openai", input: `turn ${i}` });
        const next = await client(key, second).responses.create({ model: "chat-openai", input: "again", previous_response_id: r.id });
        expect(next.previous_response_id).toBe(r.id);
      }
    } finally {
      await second.dispose();
    }
  });
});
