/**
 * Content logs through the real server (docs/content-logs.md): an organisation with logging off
 * gets no row at all (checked in the database), one with "full" gets one sealed row per request
 * (streamed answers reassembled) that decrypts to the prompt and the answer the client saw, with
 * its redactions applied, tool calls and images included, passed through or converted; a key
 * narrowed to "metadata" writes nothing.
 */
import { createDecipheriv, createHash } from "node:crypto";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount, createKey } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { textFakeUrls, textGatewayConfig } from "./text-config";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  server = await startTestServer({ config: textGatewayConfig(textFakeUrls(fakes)) });
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});

/** lib/crypto.ts's `v1.<iv>.<tag>.<ct>` with the server's ENCRYPTION_KEY. */
function unseal(sealed: string): any {
  const [, iv, tag, ct] = sealed.split(".");
  const key = createHash("sha256").update(server.env.ENCRYPTION_KEY!).digest();
  const d = createDecipheriv("aes-256-gcm", key, Buffer.from(iv!, "base64url"));
  d.setAuthTag(Buffer.from(tag!, "base64url"));
  return JSON.parse(Buffer.concat([d.update(Buffer.from(ct!, "base64url")), d.final()]).toString("utf8"));
}

async function accountOf(email: string): Promise<string> {
  const [u] = await server.query<{ account_id: string }>("select account_id from users where email = $1", [email]);
  return u!.account_id;
}

async function logged(requestId: string) {
  for (let i = 0; i < 100; i++) {
    const [row] = await server.query<{ account_id: string; sealed: string; stream: boolean; key_id: string }>("select * from content_logs where request_id = $1", [requestId]);
    if (row) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no content log for ${requestId}`);
}

const PROMPT = "Reach me at jane@example.com, key sk-live-0123456789abcdefghij, ticket SECRET-4242.";

async function chat(key: string, stream: boolean): Promise<{ requestId: string; text: string }> {
  const oa = client(key);
  if (!stream) {
    const r = await oa.chat.completions.create({ model: "demo-chat", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: PROMPT }] }).withResponse();
    return { requestId: r.response.headers.get("x-request-id")!, text: r.data.choices[0]!.message.content ?? "" };
  }
  const { data, response } = await oa.chat.completions.create({ model: "demo-chat", stream: true, messages: [{ role: "user", content: PROMPT }] }).withResponse();
  let text = "";
  for await (const c of data) text += c.choices[0]?.delta?.content ?? "";
  return { requestId: response.headers.get("x-request-id")!, text };
}

describe("content logs", () => {
  it("off (the default): nothing is written for the organisation, streamed or not", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    const acct = await accountOf(email);
    const ids = [(await chat(key, false)).requestId, (await chat(key, true)).requestId];
    // The request log rows exist; the content log writes (after the reply) would have landed by then.
    for (let i = 0; i < 100; i++) {
      const rows = await server.query("select 1 from request_logs where request_id = any($1)", [ids]);
      if (rows.length === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(await server.query("select * from content_logs where account_id = $1 or request_id = any($2)", [acct, ids])).toEqual([]);
  });

  it("full: one sealed row per request with the prompt and the (reassembled) answer, redacted", async () => {
    const { email } = await createAccount(server, { usd: 1 });
    const acct = await accountOf(email);
    await server.query("update accounts set content_log_mode = 'full', content_log_redact = $2 where id = $1", [acct, ["SECRET-\\d+"]]);
    const key = await createKey(server, email);
    for (const stream of [false, true]) {
      const { requestId, text } = await chat(key, stream);
      const row = await logged(requestId);
      expect(row.account_id).toBe(acct);
      expect(row.stream).toBe(stream);
      expect(row.sealed.startsWith("v1.")).toBe(true);
      expect(row.sealed).not.toContain("jane");
      const c = unseal(row.sealed);
      expect(c.request.model).toBe("demo-chat");
      expect(c.request.messages.at(-1)).toEqual({ role: "user", parts: [{ type: "text", text: "Reach me at [REDACTED:email], key [REDACTED:api_key], ticket [REDACTED]." }] });
      if (!stream) expect(c.request.system).toBe("Be brief.");
      expect(text.length).toBeGreaterThan(0);
      // The demo model echoes the prompt: the answer the client saw, with the same redactions.
      expect(c.answer.text).toBe(text.replace("jane@example.com", "[REDACTED:email]").replace("sk-live-0123456789abcdefghij", "[REDACTED:api_key]").replace("SECRET-4242", "[REDACTED]"));
      expect(c.answer.stopReason).toBe("end");
      const all = JSON.stringify(c);
      for (const re of [/jane@example\.com/, /sk-live-\w+/, /SECRET-\d+/]) expect(all).not.toMatch(re);
    }
  });

  it("tool calls and images, passed through and converted: the streamed tool call reassembled", async () => {
    const { email } = await createAccount(server, { usd: 1 });
    await server.query("update accounts set content_log_mode = 'full' where id = $1", [await accountOf(email)]);
    const key = await createKey(server, email);
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    // Chat completions on an OpenAI upstream: the passthrough.
    fakes.openai.reset({ text: "", toolCalls: [{ name: "weather", arguments: '{"city":"Oslo"}' }] });
    const { data, response } = await client(key)
      .chat.completions.create({
        model: "chat-openai",
        stream: true,
        tools: [{ type: "function", function: { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
        messages: [{ role: "user", content: [{ type: "text", text: "Weather?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] }],
      })
      .withResponse();
    for await (const _ of data);
    const c = unseal((await logged(response.headers.get("x-request-id")!)).sealed);
    expect(c.request.tools).toEqual(["weather"]);
    expect(c.request.messages[0].parts).toEqual([{ type: "text", text: "Weather?" }, { type: "image", mediaType: "image/png", data: png }]);
    expect(c.answer.toolCalls).toMatchObject([{ name: "weather", arguments: '{"city":"Oslo"}' }]);
    expect(c.answer.stopReason).toBe("tool_calls");

    // Anthropic Messages on the same OpenAI upstream: converted; the tool result turn is logged too.
    fakes.openai.reset({ text: "It rains in Oslo." });
    const r = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({
        model: "chat-openai",
        max_tokens: 50,
        messages: [
          { role: "user", content: "Weather?" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "rain" }] },
        ],
        tools: [{ name: "weather", input_schema: { type: "object" } }],
      }),
    });
    expect(r.status).toBe(200);
    const m = unseal((await logged(r.headers.get("x-request-id")!)).sealed);
    expect(m.request.messages[1].parts[0]).toMatchObject({ type: "tool_call", name: "weather" });
    expect(JSON.parse(m.request.messages[1].parts[0].arguments)).toEqual({ city: "Oslo" });
    expect(m.request.messages[2].parts[0]).toMatchObject({ type: "tool_result", callId: "toolu_1", content: [{ type: "text", text: "rain" }] });
    expect(m.answer.text).toBe("It rains in Oslo.");
  });

  it("a key narrowed to metadata writes nothing in an organisation that logs", async () => {
    const { email } = await createAccount(server, { usd: 1 });
    const acct = await accountOf(email);
    await server.query("update accounts set content_log_mode = 'full' where id = $1", [acct]);
    const key = await createKey(server, email);
    await server.query("update api_keys set content_log_mode = 'metadata' where account_id = $1", [acct]);
    const { requestId } = await chat(key, true);
    const control = await createKey(server, email);
    await logged((await chat(control, false)).requestId); // the organisation's other key does log
    expect(await server.query("select 1 from content_logs where request_id = $1", [requestId])).toEqual([]);
  });
});
