/**
 * The Responses API over WebSocket (issue 35), as Codex uses it: `GET /v1/responses` upgraded
 * with the key, `response.create` frames served one after another on one socket with the same
 * events as SSE, `previous_response_id` continuing the socket's last response with
 * `store: false`, each response billed; a refused key before the upgrade is an HTTP 401, and a
 * 402 or a key revoked mid-session ends the socket cleanly after an `error` frame. Also: Next,
 * once it has served a page, must not swallow the upgrade (it ends sockets it does not route).
 */
import WebSocket from "ws";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { adminOk, createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { textFakeUrls, textGatewayConfig } from "./text-config";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  server = await startTestServer({ config: textGatewayConfig(textFakeUrls(fakes)) });
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

const wsUrl = () => `${server.url.replace(/^http/, "ws")}/v1/responses`;

/** A connected socket and the frames it receives, with a way to wait for the next ones. */
async function connect(key: string) {
  const ws = new WebSocket(wsUrl(), { headers: { authorization: `Bearer ${key}`, "openai-beta": "responses_websockets=2026-02-06" } });
  const frames: any[] = [];
  let closed: { code: number; reason: string } | null = null;
  let wake = () => {};
  ws.on("message", (d) => (frames.push(JSON.parse(d.toString())), wake()));
  ws.on("close", (code, reason) => ((closed = { code, reason: reason.toString() }), wake()));
  await new Promise<void>((resolve, reject) => ws.once("open", () => resolve()).once("error", reject));
  const until = async (done: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!done() && Date.now() < deadline) await new Promise<void>((r) => ((wake = r), setTimeout(r, 200)));
  };
  /** Sends one response.create and returns the frames it produced (through its last one). */
  const create = async (body: Record<string, unknown>) => {
    const from = frames.length;
    ws.send(JSON.stringify({ type: "response.create", ...body }));
    await until(() => closed !== null || frames.slice(from).some((f) => f.type === "response.completed" || f.type === "error"));
    return frames.slice(from);
  };
  return { ws, frames, create, closed: () => closed, until };
}

async function sseTypes(key: string, body: Record<string, unknown>): Promise<string[]> {
  const r = await fetch(`${server.url}/v1/responses`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ ...body, stream: true }) });
  return (await r.text())
    .split("\n\n")
    .map((b) => b.split("\n").find((l) => l.startsWith("data: ")))
    .filter((l): l is string => !!l)
    .map((l) => JSON.parse(l.slice(6)).type);
}

describe("Responses over WebSocket", () => {
  it("serves response.create frames one after another with the SSE events, continues with previous_response_id, bills each", async () => {
    const { key, email } = await createAccount(server, { usd: 1 });
    await fetch(`${server.url}/`); // Next hooks upgrades once it has served a page
    const before = await idleBooks(server, email);
    const s = await connect(key);
    const first = await s.create({ model: "chat-anthropic", input: "The code word is PAPAYA.", store: false });
    expect(first.map((f) => f.type)).toEqual(await sseTypes(key, { model: "chat-anthropic", input: "The code word is PAPAYA.", store: false }));
    const done = first.at(-1);
    expect(done).toMatchObject({ type: "response.completed", response: { status: "completed", usage: { input_tokens: 11, output_tokens: 5 } } });

    // Codex's next turn: only the new item, chained to the socket's last response (not stored).
    fakes.anthropic.reset({ text: "PAPAYA." });
    const second = await s.create({ model: "chat-anthropic", previous_response_id: done.response.id, input: [{ type: "message", role: "user", content: "The code word?" }], store: false });
    expect(second.at(-1)).toMatchObject({ type: "response.completed", response: { output: [{ type: "message", content: [{ text: "PAPAYA." }] }] } });
    const sent = JSON.stringify(fakes.anthropic.generationRequests().at(-1)!.body);
    expect(sent).toContain("The code word is PAPAYA.");
    expect(sent).toContain("Hello from the fake upstream!");

    // Codex's warm-up (generate: false) costs nothing and calls no upstream; the turn continues it.
    const calls = fakes.anthropic.generationRequests().length;
    const warm = await s.create({ model: "chat-anthropic", input: [{ type: "message", role: "user", content: "Warm context." }], store: false, generate: false });
    expect(warm.map((f) => f.type)).toEqual(["response.created", "response.completed"]);
    expect(fakes.anthropic.generationRequests()).toHaveLength(calls);
    const third = await s.create({ model: "chat-anthropic", previous_response_id: warm.at(-1).response.id, input: [], store: false });
    expect(third.at(-1).type).toBe("response.completed");
    expect(JSON.stringify(fakes.anthropic.generationRequests().at(-1)!.body)).toContain("Warm context.");
    s.ws.close(1000);

    // Four answered responses (three on the socket, one over SSE), four charges; nothing held.
    const after = await idleBooks(server, email);
    const [logs] = await server.query<{ n: number; cost: string }>(
      "select count(*)::int as n, sum(cost_micro_usd)::text as cost from request_logs r join users u on u.account_id = r.account_id where u.email = $1",
      [email],
    );
    expect(logs!.n).toBe(4);
    expect(before.balance - after.balance).toBe(Number(logs!.cost));
    expect(after).toMatchObject({ held: 0, holds: 0, balance: after.ledger });
  });

  it("refuses the upgrade without a valid key with an HTTP 401", async () => {
    const ws = new WebSocket(wsUrl(), { headers: { authorization: "Bearer sk-not-a-key" } });
    const status = await new Promise<number>((resolve) => ws.on("unexpected-response", (_req, res) => resolve(res.statusCode!)).on("open", () => resolve(101)));
    expect(status).toBe(401);
  });

  it("answers a 402 with an error frame, then closes the socket", async () => {
    const { key } = await createAccount(server, { usd: 0 });
    const s = await connect(key);
    const frames = await s.create({ model: "chat-openai", input: "Hi", store: false });
    expect(frames).toEqual([expect.objectContaining({ type: "error", status: 402, error: expect.objectContaining({ type: "insufficient_quota" }) })]);
    await s.until(() => s.closed() !== null);
    expect(s.closed()).toMatchObject({ code: 1008 });
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });

  it("closes the socket when its key is revoked mid-session, after an error frame", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const s = await connect(key);
    expect((await s.create({ model: "chat-gemini", input: "Hi", store: false })).at(-1).type).toBe("response.completed");
    await adminOk(server, "key", "revoke", key);
    let frames: any[] = [];
    for (let i = 0; i < 20 && frames.at(-1)?.type !== "error"; i++) {
      frames = await s.create({ model: "chat-gemini", input: "Again", store: false });
      if (frames.at(-1)?.type !== "error") await new Promise((r) => setTimeout(r, 50)); // the revocation reaches the key cache
    }
    expect(frames.at(-1)).toMatchObject({ type: "error", status: 401, error: { code: "invalid_token" } });
    await s.until(() => s.closed() !== null);
    expect(s.closed()).toMatchObject({ code: 1008, reason: "invalid_token" });
  });

  it("answers a frame that is not response.create with an error frame and keeps the socket", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const s = await connect(key);
    s.ws.send("not json");
    s.ws.send(JSON.stringify({ type: "response.processed", response_id: "resp_x" })); // Codex's acknowledgement: ignored
    s.ws.send(JSON.stringify({ type: "session.update" }));
    await s.until(() => s.frames.length >= 2);
    expect(s.frames.map((f) => [f.type, f.status])).toEqual([["error", 400], ["error", 400]]);
    expect((await s.create({ model: "chat-openai", input: "Hi", store: false })).at(-1).type).toBe("response.completed");
    expect(s.closed()).toBeNull();
    s.ws.close(1000);
  });
});
