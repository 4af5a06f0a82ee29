/**
 * The contract every metered route keeps, whatever its protocol or capability: a served request
 * has one request-log row under its request id whose cost is the `x-gateway-cost-usd` it was
 * told (non-streamed) and the ledger moved by exactly that; a failed upstream call charges
 * nothing; a key without money gets a 402 in the route's own error shape and no row of cost;
 * vendor headers reach a same-protocol upstream on passthrough; nothing stays held. One table of
 * routes, so a new entry that builds its call apart from the others (as POST /v1/responses once
 * did) shows here. Batches (three dialects) keep the same contract per line: one log row per line
 * linked to the batch, the ledger moved by exactly their costs, the batch's `cost_usd` their sum,
 * nothing held once it ends, a 402 in the dialect's own shape when the hold cannot be taken. The
 * files routes are not metered: they charge nothing and work without money.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../lib/config/demo-catalog";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses, type ResponsesFake } from "./fakes/openai-responses-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount, type TestAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { TEXT_PRICE_USD } from "./text-config";

let server: TestServer;
let chat: FakeTextUpstream;
let anthropic: FakeTextUpstream;
let resp: ResponsesFake;
let funded: TestAccount;
let broke: TestAccount;

beforeAll(async () => {
  [chat, anthropic, resp] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeOpenAIResponses({ name: "rs" })]);
  const text = (id: string, upstream: string) => ({ id, kind: "text", upstream, upstreamModel: `${id}-up`, price: TEXT_PRICE_USD, defaultMaxTokens: 100 });
  server = await startTestServer({
    config: {
      upstreams: [
        ...demoCatalog.upstreams,
        { id: "oa", protocol: "openai", baseUrl: chat.baseUrl, apiKey: OPENAI_FAKE_KEY, timeoutMs: 3000 },
        { id: "an", protocol: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_FAKE_KEY, timeoutMs: 3000 },
        { id: "rs", protocol: "openai-responses", baseUrl: resp.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY, timeoutMs: 3000 },
      ],
      models: [...demoCatalog.models, text("pt-chat", "oa"), text("pt-messages", "an"), text("pt-responses", "rs")],
    },
  });
  [funded, broke] = await Promise.all([createAccount(server, { usd: 5 }), createAccount(server, { usd: 0 })]);
});
afterAll(async () => {
  await server?.dispose();
  for (const f of [chat, anthropic, resp]) await f?.close();
});

type Auth = "bearer" | "x-api-key" | "x-goog-api-key";
interface Route {
  name: string;
  path: string;
  body: Record<string, unknown>;
  auth?: Auth;
  stream?: boolean;
  /** Sent as multipart/form-data (the body's fields, plus this file), not JSON. */
  file?: { name: string; type: string; bytes: () => Buffer };
  /** How the route's 402 reads: the protocol's own error shape. */
  refusal: (body: Record<string, unknown>) => void;
}

const openaiRefusal = (b: Record<string, unknown>) => expect(b).toMatchObject({ error: { type: "insufficient_quota", code: "insufficient_user_quota" } });
const anthropicRefusal = (b: Record<string, unknown>) => expect(b).toMatchObject({ type: "error", error: { type: expect.any(String), message: expect.any(String) } });
const googleRefusal = (b: Record<string, unknown>) => expect(b).toMatchObject({ error: { code: 402, status: expect.any(String), message: expect.any(String) } });

const say = "Say hi";

/** One second of 24 kHz 16-bit mono silence, as WAV. */
function oneSecondWav(): Buffer {
  const pcm = Buffer.alloc(48_000);
  const h = Buffer.alloc(44);
  h.write("RIFF", 0), h.writeUInt32LE(36 + pcm.length, 4), h.write("WAVEfmt ", 8), h.writeUInt32LE(16, 16), h.writeUInt16LE(1, 20), h.writeUInt16LE(1, 22);
  h.writeUInt32LE(24_000, 24), h.writeUInt32LE(48_000, 28), h.writeUInt16LE(2, 32), h.writeUInt16LE(16, 34), h.write("data", 36), h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}
const ROUTES: Route[] = [
  { name: "chat completions", path: "/v1/chat/completions", body: { model: "demo-chat", messages: [{ role: "user", content: say }] }, refusal: openaiRefusal },
  { name: "chat completions, streamed", path: "/v1/chat/completions", stream: true, body: { model: "demo-chat", stream: true, messages: [{ role: "user", content: say }] }, refusal: openaiRefusal },
  { name: "responses", path: "/v1/responses", body: { model: "demo-chat", input: say }, refusal: openaiRefusal },
  { name: "responses, streamed", path: "/v1/responses", stream: true, body: { model: "demo-chat", input: say, stream: true }, refusal: openaiRefusal },
  { name: "responses, not stored", path: "/v1/responses", body: { model: "demo-chat", input: say, store: false }, refusal: openaiRefusal },
  { name: "messages", path: "/v1/messages", auth: "x-api-key", body: { model: "demo-chat", max_tokens: 50, messages: [{ role: "user", content: say }] }, refusal: anthropicRefusal },
  { name: "messages, streamed", path: "/v1/messages", auth: "x-api-key", stream: true, body: { model: "demo-chat", max_tokens: 50, stream: true, messages: [{ role: "user", content: say }] }, refusal: anthropicRefusal },
  { name: "generateContent", path: "/v1beta/models/demo-chat:generateContent", auth: "x-goog-api-key", body: { contents: [{ role: "user", parts: [{ text: say }] }] }, refusal: googleRefusal },
  { name: "streamGenerateContent", path: "/v1beta/models/demo-chat:streamGenerateContent?alt=sse", auth: "x-goog-api-key", stream: true, body: { contents: [{ role: "user", parts: [{ text: say }] }] }, refusal: googleRefusal },
  { name: "interactions", path: "/v1beta/interactions", auth: "x-goog-api-key", body: { model: "demo-chat", input: say }, refusal: googleRefusal },
  { name: "interactions, streamed", path: "/v1beta/interactions", auth: "x-goog-api-key", stream: true, body: { model: "demo-chat", input: say, stream: true }, refusal: googleRefusal },
  { name: "embeddings", path: "/v1/embeddings", body: { model: "demo-embed", input: "a small red fox" }, refusal: openaiRefusal },
  { name: "images", path: "/v1/images/generations", body: { model: "demo-image-mini", prompt: "a fox", size: "1024x1024" }, refusal: openaiRefusal },
  { name: "speech (streamed audio)", path: "/v1/audio/speech", stream: true, body: { model: "demo-tts", voice: "alloy", input: say, response_format: "wav" }, refusal: openaiRefusal },
  { name: "transcriptions", path: "/v1/audio/transcriptions", body: { model: "demo-stt" }, file: { name: "a.wav", type: "audio/wav", bytes: oneSecondWav }, refusal: openaiRefusal },
  { name: "videos", path: "/v1/videos", body: { model: "demo-video", prompt: "a paper boat", seconds: "10", size: "1920x1080" }, refusal: openaiRefusal },
];

function headersFor(key: string, auth: Auth = "bearer", extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { "content-type": "application/json", ...extra };
  if (auth === "bearer") h.authorization = `Bearer ${key}`;
  else if (auth === "x-api-key") (h["x-api-key"] = key), (h["anthropic-version"] = "2023-06-01");
  else h["x-goog-api-key"] = key;
  return h;
}

async function call(route: Pick<Route, "path" | "body" | "auth" | "file">, key: string, extra?: Record<string, string>) {
  const headers = headersFor(key, route.auth, extra);
  let body: string | FormData = JSON.stringify(route.body);
  if (route.file) {
    delete headers["content-type"];
    body = new FormData();
    for (const [k, v] of Object.entries(route.body)) body.set(k, String(v));
    body.set("file", new Blob([new Uint8Array(route.file.bytes())], { type: route.file.type }), route.file.name);
  }
  const res = await fetch(`${server.url}${route.path}`, { method: "POST", headers, body });
  const text = await res.text(); // a stream is read to its end: the settlement follows it
  return { res, text };
}

async function logRows(requestId: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const rows = await server.query<{ cost: string; status: number; settlement: string | null }>(
      "select cost_micro_usd as cost, status, settlement from request_logs where request_id = $1",
      [requestId],
    );
    if (rows.length || Date.now() > deadline) return rows.map((r) => ({ ...r, cost: Number(r.cost) }));
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ledgerOf = async (email: string) =>
  Number(
    (
      await server.query<{ s: string }>(
        "select coalesce(sum(l.delta_micro_usd), 0) as s from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1",
        [email],
      )
    )[0]!.s,
  );

describe("every metered route", () => {
  for (const route of ROUTES) {
    it(`${route.name}: one log row, its cost charged once${route.stream ? "" : " and told in x-gateway-cost-usd"}`, async () => {
      await idleBooks(server, funded.email);
      const before = await ledgerOf(funded.email);
      const { res, text } = await call(route, funded.key);
      expect(res.status, text.slice(0, 300)).toBeLessThan(300);
      const requestId = res.headers.get("x-request-id")!;
      expect(requestId).toBeTruthy();
      const rows = await logRows(requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.cost).toBeGreaterThan(0);
      if (!route.stream) expect(Math.round(Number(res.headers.get("x-gateway-cost-usd")) * 1_000_000)).toBe(rows[0]!.cost);
      const books = await idleBooks(server, funded.email);
      expect(before - (await ledgerOf(funded.email))).toBe(rows[0]!.cost);
      expect(books).toMatchObject({ held: 0, holds: 0, balance: books.ledger });
    });

    it(`${route.name}: a key without money gets 402 in the route's own shape, and pays nothing`, async () => {
      const { res, text } = await call(route, broke.key);
      expect(res.status).toBe(402);
      route.refusal(JSON.parse(text));
      expect(await ledgerOf(broke.email)).toBe(0);
    });
  }

  it("a background response is charged once, when it ends, however often it is polled", async () => {
    await idleBooks(server, funded.email);
    const before = await ledgerOf(funded.email);
    const { res, text } = await call({ path: "/v1/responses", body: { model: "demo-chat", input: say, background: true } }, funded.key);
    expect(res.status).toBe(200);
    const id = JSON.parse(text).id as string;
    let status = "";
    for (let i = 0; i < 200 && status !== "completed"; i++) {
      const r = await fetch(`${server.url}/v1/responses/${id}`, { headers: headersFor(funded.key) });
      status = ((await r.json()) as { status: string }).status;
      if (status !== "completed") await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe("completed");
    const rows = await server.query<{ cost: string }>("select cost_micro_usd as cost from request_logs where account_id = (select account_id from users where email = $1) order by id desc limit 1", [funded.email]);
    await idleBooks(server, funded.email);
    expect(before - (await ledgerOf(funded.email))).toBe(Number(rows[0]!.cost));
  });
});

/** A batch route: how to create a small batch of demo-chat lines, and how to read it back. */
interface BatchRoute {
  name: string;
  create: (key: string) => Promise<Response>;
  idOf: (body: Record<string, unknown>) => string;
  poll: (key: string, id: string) => Promise<{ ended: boolean; costUsd: number }>;
  refusal: (body: Record<string, unknown>) => void;
}

const jsonHeaders = (key: string, auth: Auth = "bearer") => headersFor(key, auth);
async function uploadJsonl(key: string, lines: unknown[]): Promise<string> {
  const form = new FormData();
  form.set("purpose", "batch");
  form.set("file", new Blob([lines.map((l) => JSON.stringify(l)).join("\n")], { type: "application/jsonl" }), "in.jsonl");
  const res = await fetch(`${server.url}/v1/files`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  return ((await res.json()) as { id: string }).id;
}
const getJson = async (url: string, headers: Record<string, string>) => (await (await fetch(`${server.url}${url}`, { headers })).json()) as Record<string, unknown>;

const BATCH_ROUTES: BatchRoute[] = [
  {
    name: "POST /v1/batches (OpenAI)",
    create: async (key) => {
      const lines = [0, 1].map((i) => ({ custom_id: `c${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "demo-chat", max_tokens: 20, messages: [{ role: "user", content: `${say} ${i}` }] } }));
      const input_file_id = await uploadJsonl(key, lines);
      return fetch(`${server.url}/v1/batches`, { method: "POST", headers: jsonHeaders(key), body: JSON.stringify({ input_file_id, endpoint: "/v1/chat/completions", completion_window: "24h" }) });
    },
    idOf: (b) => String(b.id),
    poll: async (key, id) => {
      const b = await getJson(`/v1/batches/${id}`, jsonHeaders(key));
      return { ended: b.status === "completed", costUsd: Number(b.cost_usd) };
    },
    refusal: openaiRefusal,
  },
  {
    name: "POST /v1/messages/batches (Anthropic)",
    create: (key) =>
      fetch(`${server.url}/v1/messages/batches`, {
        method: "POST",
        headers: jsonHeaders(key, "x-api-key"),
        body: JSON.stringify({ requests: [0, 1].map((i) => ({ custom_id: `m${i}`, params: { model: "demo-chat", max_tokens: 20, messages: [{ role: "user", content: `${say} ${i}` }] } })) }),
      }),
    idOf: (b) => String(b.id),
    poll: async (key, id) => {
      const b = await getJson(`/v1/messages/batches/${id}`, jsonHeaders(key, "x-api-key"));
      return { ended: b.processing_status === "ended", costUsd: Number(b.cost_usd) };
    },
    refusal: anthropicRefusal,
  },
  {
    name: "POST /v1beta/models/{model}:batchGenerateContent (Gemini)",
    create: (key) =>
      fetch(`${server.url}/v1beta/models/demo-chat:batchGenerateContent`, {
        method: "POST",
        headers: jsonHeaders(key, "x-goog-api-key"),
        body: JSON.stringify({ batch: { displayName: "contract", inputConfig: { requests: { requests: [0, 1].map((i) => ({ request: { contents: [{ role: "user", parts: [{ text: `${say} ${i}` }] }] }, metadata: { key: `g${i}` } })) } } } }),
      }),
    idOf: (b) => String(b.name).split("/")[1]!,
    poll: async (key, id) => {
      const b = await getJson(`/v1beta/batches/${id}`, jsonHeaders(key, "x-goog-api-key"));
      return { ended: b.done === true, costUsd: Number(b.cost_usd) };
    },
    refusal: googleRefusal,
  },
];

describe("every metered batch route", () => {
  for (const route of BATCH_ROUTES) {
    it(`${route.name}: one log row per line linked to the batch, the ledger moved by their costs once, nothing held`, async () => {
      await idleBooks(server, funded.email);
      const before = await ledgerOf(funded.email);
      const res = await route.create(funded.key);
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(200);
      const id = route.idOf(JSON.parse(text));
      let state = { ended: false, costUsd: 0 };
      for (let i = 0; i < 200 && !state.ended; i++) {
        state = await route.poll(funded.key, id);
        if (!state.ended) await new Promise((r) => setTimeout(r, 100));
      }
      expect(state.ended).toBe(true);
      const rows = await server.query<{ cost: string }>("select cost_micro_usd as cost from request_logs where batch_id = $1", [id]);
      expect(rows).toHaveLength(2);
      const cost = rows.reduce((a, r) => a + Number(r.cost), 0);
      expect(cost).toBeGreaterThan(0);
      expect(Math.round(state.costUsd * 1_000_000)).toBe(cost);
      // Polled again: nothing more is charged.
      await route.poll(funded.key, id);
      const books = await idleBooks(server, funded.email);
      expect(before - (await ledgerOf(funded.email))).toBe(cost);
      expect(books).toMatchObject({ held: 0, holds: 0, balance: books.ledger });
    });

    it(`${route.name}: a key without money gets 402 in the dialect's own shape, and pays nothing`, async () => {
      const res = await route.create(broke.key);
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(402);
      route.refusal(JSON.parse(text));
      expect(await ledgerOf(broke.email)).toBe(0);
    });
  }

  it("the files routes are not metered: upload, list, retrieve, content and delete charge nothing, even without money", async () => {
    const id = await uploadJsonl(broke.key, [{ hello: "files" }]);
    expect(id).toMatch(/^file-/);
    const h = { authorization: `Bearer ${broke.key}` };
    for (const path of ["/v1/files", `/v1/files/${id}`, `/v1/files/${id}/content`]) expect((await fetch(`${server.url}${path}`, { headers: h })).status).toBe(200);
    expect((await fetch(`${server.url}/v1/files/${id}`, { method: "DELETE", headers: h })).status).toBe(200);
    expect(await ledgerOf(broke.email)).toBe(0);
    const [n] = await server.query<{ n: number }>("select count(*)::int as n from request_logs where account_id = (select account_id from users where email = $1) and cost_micro_usd > 0", [broke.email]);
    expect(n!.n).toBe(0);
  });
});

describe("passthrough", () => {
  it("forwards each protocol's vendor headers to a same-protocol upstream", async () => {
    chat.reset({ text: "ok", usage: { input: 5, output: 1 } });
    anthropic.reset({ text: "ok", usage: { input: 5, output: 1 } });
    resp.reset({ text: "ok", usage: { input: 5, output: 1 } });
    await call({ path: "/v1/chat/completions", body: { model: "pt-chat", messages: [{ role: "user", content: say }] } }, funded.key, { "openai-beta": "assistants=v2" });
    await call({ path: "/v1/responses", body: { model: "pt-responses", input: say } }, funded.key, { "openai-beta": "responses=experimental" });
    await call({ path: "/v1/messages", auth: "x-api-key", body: { model: "pt-messages", max_tokens: 50, messages: [{ role: "user", content: say }] } }, funded.key, { "anthropic-beta": "context-1m-2025-08-07" });
    expect(chat.generationRequests()[0]!.headers["openai-beta"]).toBe("assistants=v2");
    expect(resp.generationRequests()[0]!.headers["openai-beta"]).toBe("responses=experimental");
    expect(anthropic.generationRequests()[0]!.headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
  });

  it("an upstream that fails charges nothing, and the log row says so", async () => {
    for (const [fake, route] of [
      [chat, { path: "/v1/chat/completions", body: { model: "pt-chat", messages: [{ role: "user", content: say }] } }],
      [resp, { path: "/v1/responses", body: { model: "pt-responses", input: say } }],
      [anthropic, { path: "/v1/messages", auth: "x-api-key" as const, body: { model: "pt-messages", max_tokens: 50, messages: [{ role: "user", content: say }] } }],
    ] as const) {
      fake.reset({ errorStatus: 400, errorMessage: "bad request upstream" });
      await idleBooks(server, funded.email); // earlier requests' leases settled first
      const before = await ledgerOf(funded.email);
      const { res } = await call(route, funded.key);
      expect(res.status).toBe(400);
      const rows = await logRows(res.headers.get("x-request-id")!);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.cost).toBe(0);
      await idleBooks(server, funded.email);
      expect(await ledgerOf(funded.email)).toBe(before);
    }
  });
});
