/**
 * Model lifecycle (decision 0051) against the real server and the demo upstream, with dates far
 * in the past or future instead of a clock: a deprecated model's replies carry Deprecation,
 * Sunset and the successor's Link on every protocol; a shut-down one is a 410 in each
 * protocol's error shape with nothing charged; an opted-in one is served by its successor at the
 * successor's price, `x-gateway-model` naming it; `/v1/models` lists the dates in all three shapes;
 * the admin's list of keys still calling deprecated models.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb } from "../db/client";
import { resetEnvCache } from "../lib/env";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

const PAST = "2000-01-01";
const LONG_AGO = "1999-01-01";
const FUTURE = "2999-01-01T00:00:00Z";

const text = (id: string, input: number, output: number, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "text",
  upstream: "demo",
  price: { inputPerMTok: input, outputPerMTok: output },
  maxOutputTokens: 64,
  ...extra,
});
const config = {
  upstreams: [{ id: "demo", protocol: "demo" }],
  models: [
    text("new-chat", 5, 25),
    // Deprecated, shuts down in the far future: served, with the notice.
    text("old-chat", 1, 1, { deprecatedAt: LONG_AGO, shutdownAt: FUTURE, successor: "new-chat" }),
    // Shut down: 410.
    text("gone-chat", 1, 1, { deprecatedAt: LONG_AGO, shutdownAt: PAST, successor: "new-chat" }),
    // Shut down, the operator opted in: the successor serves at its price.
    text("moved-chat", 1, 1, { deprecatedAt: LONG_AGO, shutdownAt: PAST, successor: "new-chat", serveSuccessorAfterShutdown: true }),
    { id: "new-emb", kind: "embedding", upstream: "demo", price: { inputPerMTok: 0.02 } },
    { id: "gone-emb", kind: "embedding", upstream: "demo", price: { inputPerMTok: 0.01 }, deprecatedAt: LONG_AGO, shutdownAt: PAST, successor: "new-emb" },
    { id: "new-img", kind: "image", upstream: "demo", price: { perImage: { "*": 0.05 } } },
    { id: "moved-img", kind: "image", upstream: "demo", price: { perImage: { "*": 0.01 } }, deprecatedAt: LONG_AGO, shutdownAt: PAST, successor: "new-img", serveSuccessorAfterShutdown: true },
    { id: "new-vid", kind: "video", family: "t2v", upstream: "demo", price: { perVideo: 0.4 } },
    { id: "gone-vid", kind: "video", family: "t2v", upstream: "demo", price: { perVideo: 0.1 }, deprecatedAt: LONG_AGO, shutdownAt: PAST, successor: "new-vid" },
    { id: "moved-vid", kind: "video", family: "t2v", upstream: "demo", price: { perVideo: 0.1 }, deprecatedAt: LONG_AGO, shutdownAt: PAST, successor: "new-vid", serveSuccessorAfterShutdown: true },
  ],
};

let server: TestServer;
let email: string;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ config });
  ({ email, key } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await closeDb();
  await server?.dispose();
});

/** The four text protocols, each as its SDK sends a minimal request. */
const PROTOCOLS: Record<string, (model: string) => [string, RequestInit]> = {
  chat: (model) => ["/v1/chat/completions", { body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 16 }) }],
  responses: (model) => ["/v1/responses", { body: JSON.stringify({ model, input: "hi", max_output_tokens: 16 }) }],
  messages: (model) => ["/v1/messages", { headers: { "anthropic-version": "2023-06-01" }, body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }] }) }],
  gemini: (model) => [`/v1beta/models/${model}:generateContent`, { body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }) }],
};

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: init.body ? "POST" : "GET",
    ...init,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });
  const body = (await res.json().catch(() => null)) as Record<string, any> | null;
  return { status: res.status, headers: res.headers, body };
}

async function logRow(requestId: string | null) {
  for (let i = 0; i < 50; i++) {
    const [row] = await server.query<{ model: string; served_model: string | null; status: number; cost_micro_usd: string; price_snapshot: Record<string, number> | null }>(
      "select model, served_model, status, cost_micro_usd, price_snapshot from request_logs where request_id = $1",
      [requestId],
    );
    if (row) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no request-log row for ${requestId}`);
}

const DEPRECATION = `@${Date.parse(LONG_AGO) / 1000}`;

describe("a deprecated model", () => {
  it.each(Object.keys(PROTOCOLS))("is served on %s with Deprecation, Sunset and the successor's Link", async (p) => {
    const r = await call(...PROTOCOLS[p]!("old-chat"));
    expect(r.status).toBe(200);
    expect(r.headers.get("deprecation")).toBe(DEPRECATION);
    expect(r.headers.get("sunset")).toBe("Tue, 01 Jan 2999 00:00:00 GMT");
    expect(r.headers.get("link")).toBe('</v1/models/new-chat>; rel="successor-version"');
    expect(r.headers.get("x-gateway-model")).toBe("old-chat");
  });

  it("a current model's replies carry none of it", async () => {
    const r = await call(...PROTOCOLS.chat!("new-chat"));
    expect(r.status).toBe(200);
    expect(r.headers.get("deprecation")).toBeNull();
    expect(r.headers.get("sunset")).toBeNull();
  });
});

describe("a shut-down model", () => {
  const shapes: Record<string, (b: Record<string, any>) => unknown> = {
    chat: (b) => b.error.code,
    responses: (b) => b.error.code,
    messages: (b) => (expect(b.type).toBe("error"), b.error.code),
    gemini: (b) => (expect(b.error.code).toBe(410), b.error.details?.[0]?.reason),
  };

  it.each(Object.keys(PROTOCOLS))("answers 410 model_shut_down on %s, naming the successor, and charges nothing", async (p) => {
    const before = await balanceUsd(server, email);
    const r = await call(...PROTOCOLS[p]!("gone-chat"));
    expect(r.status).toBe(410);
    expect(shapes[p]!(r.body!)).toBe("model_shut_down");
    expect(r.body!.error.message).toContain('use "new-chat" instead');
    expect(r.headers.get("deprecation")).toBe(DEPRECATION);
    expect(r.headers.get("sunset")).toBe("Sat, 01 Jan 2000 00:00:00 GMT");
    expect(await balanceUsd(server, email)).toBe(before);
    if (usesPostgres()) expect(await logRow(r.headers.get("x-request-id"))).toMatchObject({ model: "gone-chat", status: 410, cost_micro_usd: "0" });
  });

  it("answers 410 on embeddings and videos too, before any hold", async () => {
    const before = await balanceUsd(server, email);
    const emb = await call("/v1/embeddings", { body: JSON.stringify({ model: "gone-emb", input: "hi" }) });
    expect(emb.status).toBe(410);
    expect(emb.body!.error).toMatchObject({ code: "model_shut_down", param: "model" });
    const vid = await call("/v1/videos", { body: JSON.stringify({ model: "gone-vid", prompt: "a boat", seconds: "10", size: "1280x720" }) });
    expect(vid.status).toBe(410);
    expect(vid.body!.error.message).toContain('use "new-vid" instead');
    expect(await balanceUsd(server, email)).toBe(before);
  });
});

describe("a shut-down model whose operator opted in", () => {
  it.each(Object.keys(PROTOCOLS))("is served on %s by its successor, at the successor's price", async (p) => {
    const r = await call(...PROTOCOLS[p]!("moved-chat"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-gateway-model")).toBe("new-chat");
    expect(r.headers.get("deprecation")).toBe(DEPRECATION);
    if (usesPostgres()) {
      const row = await logRow(r.headers.get("x-request-id"));
      expect(row).toMatchObject({ model: "moved-chat", served_model: "new-chat", status: 200 });
      expect(row.price_snapshot).toMatchObject({ inputPerMTok: 5_000_000, outputPerMTok: 25_000_000 });
      expect(Number(row.cost_micro_usd)).toBe(Math.round(Number(r.headers.get("x-gateway-cost-usd")) * 1e6));
    }
  });

  it("images and videos: the successor's price is charged", async () => {
    let before = await balanceUsd(server, email);
    const img = await call("/v1/images/generations", { body: JSON.stringify({ model: "moved-img", prompt: "a cat", size: "1024x1024" }) });
    expect(img.status).toBe(200);
    expect(img.headers.get("x-gateway-model")).toBe("new-img");
    expect(Number(img.headers.get("x-gateway-cost-usd"))).toBe(0.05);
    expect(before - (await balanceUsd(server, email))).toBeCloseTo(0.05, 6);

    before = await balanceUsd(server, email);
    const vid = await call("/v1/videos", { body: JSON.stringify({ model: "moved-vid", prompt: "a boat", seconds: "10", size: "1280x720" }) });
    expect(vid.status).toBe(200);
    expect(vid.headers.get("x-gateway-model")).toBe("new-vid");
    expect(before - (await balanceUsd(server, email))).toBeCloseTo(0.4, 6);
    // The log keeps what the client asked for, and which model served (as for an alias).
    if (usesPostgres()) expect(await logRow(vid.headers.get("x-request-id"))).toMatchObject({ model: "moved-vid", served_model: "new-vid", cost_micro_usd: "400000" });
  });
});

describe("GET /v1/models", () => {
  it("lists the lifecycle in the OpenAI, Anthropic and Gemini shapes", async () => {
    const openai = await call("/v1/models");
    expect(openai.body!.data.find((m: { id: string }) => m.id === "old-chat")).toMatchObject({
      deprecated_at: Date.parse(LONG_AGO) / 1000,
      shutdown_at: Date.parse(FUTURE) / 1000,
      successor: "new-chat",
    });
    expect(openai.body!.data.find((m: { id: string }) => m.id === "new-chat")).not.toHaveProperty("deprecated_at");

    const anthropic = await call("/v1/models", { headers: { "anthropic-version": "2023-06-01" } });
    expect(anthropic.body!.data.find((m: { id: string }) => m.id === "gone-chat")).toMatchObject({
      deprecated_at: "1999-01-01T00:00:00.000Z",
      shutdown_at: "2000-01-01T00:00:00.000Z",
      successor: "new-chat",
    });

    const gemini = await call("/v1beta/models");
    expect(gemini.body!.models.find((m: { name: string }) => m.name === "models/moved-chat")).toMatchObject({
      deprecatedAt: "1999-01-01T00:00:00.000Z",
      shutdownAt: "2000-01-01T00:00:00.000Z",
      successor: "new-chat",
    });
  });
});

describe.runIf(usesPostgres())("the admin console", () => {
  /** The console's own functions on the server's database (the built console may predate this change). */
  async function adminDb() {
    process.env.DATABASE_URL = server.databaseUrl;
    resetEnvCache();
    const { deprecatedModelCallers, updateModel } = await import("../lib/console/admin-catalog");
    return { db: await getDb(), deprecatedModelCallers, updateModel };
  }

  it("lists the keys that called a deprecated model in the last 30 days, each with its own organisation", async () => {
    const other = await createAccount(server, { usd: 1 });
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "old-chat", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }),
    });
    expect(r.status).toBe(200);
    const { db, deprecatedModelCallers } = await adminDb();
    const rows = await deprecatedModelCallers(db);
    const byKey = (k: string) => rows.filter((x) => k.startsWith(x.keyPrefix));
    expect(byKey(key).map((x) => x.model).sort()).toEqual(["gone-chat", "gone-emb", "gone-vid", "moved-chat", "moved-img", "moved-vid", "old-chat"]);
    expect(byKey(key).find((x) => x.model === "old-chat")!.requests).toBe(Object.keys(PROTOCOLS).length);
    expect(byKey(other.key)).toEqual([expect.objectContaining({ model: "old-chat", requests: 1 })]);
    expect(byKey(other.key)[0]!.accountId).not.toBe(byKey(key)[0]!.accountId);
    expect(rows.some((x) => x.model.startsWith("new-"))).toBe(false);
    // Thirty days on, those calls no longer count.
    expect(await deprecatedModelCallers(db, new Date(Date.now() + 31 * 86_400_000))).toEqual([]);
  });

  it("the model editor sets the lifecycle for every route of the id, with the config file's rules, and the gateway follows", async () => {
    const { db, updateModel } = await adminDb();
    const [row] = await server.query<{ id: string }>("select id from models where model_id = 'new-emb'");
    const actor = { id: "admin-test", email: "admin@example.com" };
    await expect(updateModel(db, actor, row!.id, { deprecatedAt: PAST, successor: "new-chat" })).rejects.toThrow(/successor: "new-chat" is a text model/);
    await expect(updateModel(db, actor, row!.id, { shutdownAt: PAST })).rejects.toThrow(/deprecatedAt: is required with shutdownAt/);
    await updateModel(db, actor, row!.id, { deprecatedAt: PAST, successor: "gone-emb" });
    const [saved] = await server.query<{ deprecated_at: Date; successor: string }>("select deprecated_at, successor from models where model_id = 'new-emb'");
    expect(saved).toMatchObject({ deprecated_at: new Date(PAST), successor: "gone-emb" });
    // The change is announced; the next request sees it.
    let deprecation: string | null = null;
    for (let i = 0; i < 50 && !deprecation; i++) {
      deprecation = (await call("/v1/embeddings", { body: JSON.stringify({ model: "new-emb", input: "hi" }) })).headers.get("deprecation");
      if (!deprecation) await new Promise((r) => setTimeout(r, 100));
    }
    expect(deprecation).toBe(`@${Date.parse(PAST) / 1000}`);
  });
});
