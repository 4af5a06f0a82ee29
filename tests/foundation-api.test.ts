/**
 * The foundation's public API contract, checked on both mounts: the custom server (`npm start`)
 * and the Next.js route handlers alone (`next start`, as a deployment without the custom server).
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminOk, createAccount, createKey } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

const DEMO_MODELS = ["demo-chat", "demo-embed", "demo-image", "demo-image-mini", "demo-stt", "demo-tts", "demo-video"];

// The Next-only mount needs PostgreSQL for its fixtures: `next start` has no local admin endpoint
// for the CLI, and PGlite cannot be opened by a second process.
const mounts = usesPostgres() ? (["custom", "next"] as const) : (["custom"] as const);

describe.each(mounts)("public API foundation (%s mount)", (mount) => {
  let server: TestServer;
  let key: string;
  let email: string;

  beforeAll(async () => {
    server = await startTestServer({ mount });
    ({ key, email } = await createAccount(server, { usd: 5 }));
  });
  afterAll(() => server?.dispose());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

  it("lists the key's models through the official openai SDK", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1` });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids.sort()).toEqual(DEMO_MODELS);
  });

  it("returns the spec's model list shape with an x-request-id", async () => {
    const r = await get("/v1/models", { authorization: `Bearer ${key}` });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toMatch(/^req_/);
    const body = (await r.json()) as { object: string; data: Record<string, unknown>[] };
    expect(body.object).toBe("list");
    for (const m of body.data) {
      // Text models add what each token class costs (docs/api.md); nothing else is added.
      // OpenAI's four fields, then what clients need to size and price a request.
      const sizing = m.id === "demo-chat" ? ["context_window", "input_modalities", "max_output_tokens"] : [];
      expect(Object.keys(m).sort()).toEqual(["created", "id", "object", "owned_by", "pricing", ...sizing].sort());
      if (m.id === "demo-chat") {
        expect(m).toMatchObject({ context_window: 32768, max_output_tokens: 1024, input_modalities: ["text", "image"] });
        expect(Object.keys(m.pricing as object).sort()).toEqual(["cache_read_per_mtok", "cache_write_1h_per_mtok", "cache_write_5m_per_mtok", "input_per_mtok", "output_per_mtok", "reasoning_per_mtok"]);
      }
      if (m.id === "demo-embed") expect(m.pricing).toEqual({ input_per_mtok: 0.02 });
      if (m.id === "demo-video") expect(m.pricing).toEqual({ per_video: 0.25 });
      expect(m.object).toBe("model");
      expect(m.owned_by).toBe("demo");
      expect(Number.isInteger(m.created)).toBe(true);
    }
  });

  it("accepts the bearer scheme in any case, and x-api-key / ?key= / x-goog-api-key where allowed", async () => {
    expect((await get("/v1/models", { authorization: `bearer ${key}` })).status).toBe(200);
    expect((await get("/v1/models", { "x-api-key": key })).status).toBe(200);
    expect((await get(`/v1beta/models?key=${key}`)).status).toBe(200);
    expect((await get("/v1beta/models", { "x-goog-api-key": key })).status).toBe(200);
    // ?key= is only for Google's routes; a Google caller on /v1/models (API version v1) gets Gemini's list.
    const google = await get(`/v1/models?key=${key}`);
    expect(google.status).toBe(200);
    expect(Object.keys(await google.json())).toEqual(["models"]);
    expect((await fetch(`${server.url}/v1/chat/completions?key=${key}`, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("lets Authorization win over x-api-key", async () => {
    const r = await get("/v1/models", { authorization: "Bearer sk-wrong", "x-api-key": key });
    expect(r.status).toBe(401);
  });

  it("answers every bad credential with the same 401 invalid_token envelope", async () => {
    const revoked = await createKey(server, email);
    await adminOk(server, "key", "revoke", revoked);
    // The CLI process behind the next mount takes a second or two per command.
    const expiresAt = Date.now() + (mount === "next" ? 8000 : 2000);
    const expiring = await createKey(server, email, "--expires", new Date(expiresAt).toISOString());
    expect((await get("/v1/models", { authorization: `Bearer ${expiring}` })).status).toBe(200);
    await new Promise((r) => setTimeout(r, expiresAt - Date.now() + 200));
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      empty: { authorization: "" },
      "not bearer": { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
      "bare prefix": { authorization: "Bearer sk-" },
      "wrong secret": { authorization: `Bearer sk-${"A".repeat(43)}` },
      "10 KB": { authorization: `Bearer sk-${"x".repeat(10_240)}` },
      revoked: { authorization: `Bearer ${revoked}` },
      expired: { authorization: `Bearer ${expiring}` },
      "key in x-api-key of revoked": { "x-api-key": revoked },
    };
    const bodies = new Set<string>();
    for (const [name, headers] of Object.entries(cases)) {
      const r = await get("/v1/models", headers);
      expect(r.status, name).toBe(401);
      expect(r.headers.get("x-should-retry"), name).toBe("false");
      const text = await r.text();
      bodies.add(text);
      expect(JSON.parse(text).error.code, name).toBe("invalid_token");
    }
    expect(bodies.size).toBe(1);
  });

  it("refuses a revoked key on the very next request", async () => {
    const k = await createKey(server, email);
    expect((await get("/v1/models", { authorization: `Bearer ${k}` })).status).toBe(200);
    await adminOk(server, "key", "revoke", k);
    expect((await get("/v1/models", { authorization: `Bearer ${k}` })).status).toBe(401);
  });

  it("scopes the model list and lookups to the key's allow-list", async () => {
    const k = await createKey(server, email, "--models", "demo-chat,demo-video");
    const client = new OpenAI({ apiKey: k, baseURL: `${server.url}/v1` });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids.sort()).toEqual(["demo-chat", "demo-video"]);
    expect((await client.models.retrieve("demo-chat")).id).toBe("demo-chat");
    const r = await get("/v1/models/demo-embed", { authorization: `Bearer ${k}` });
    expect(r.status).toBe(404);
    expect((await r.json()).error.code).toBe("model_not_found");
  });

  it("answers a disabled account with 403 account_disabled", async () => {
    const other = await createAccount(server);
    await adminOk(server, "user", "disable", "--email", other.email);
    const r = await get("/v1/models", { authorization: `Bearer ${other.key}` });
    expect(r.status).toBe(403);
    expect((await r.json()).error.code).toBe("account_disabled");
  });

  it("answers unknown routes with a 404 envelope and wrong methods with a 405 envelope", async () => {
    const r404 = await get("/v1/no-such-thing", { authorization: `Bearer ${key}` });
    expect(r404.status).toBe(404);
    expect((await r404.json()).error).toMatchObject({ type: "not_found", code: "not_found" });
    expect(r404.headers.get("x-request-id")).toMatch(/^req_/);
    const r405 = await fetch(`${server.url}/v1/models`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } });
    expect(r405.status).toBe(405);
    expect((await r405.json()).error.code).toBe("method_not_allowed");
  });

  it("streams a chat completion event by event to a client that accepts gzip", async () => {
    // Under `next start` the reply passes Next's gzip middleware, which holds what it is given
    // until flushed: each event must still leave as it is written.
    const t0 = performance.now();
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "accept-encoding": "gzip" },
      body: JSON.stringify({ model: "demo-chat", stream: true, messages: [{ role: "user", content: "[slow] Say something" }] }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = r.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let firstEventAt = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!firstEventAt && text.includes("data: {")) firstEventAt = performance.now() - t0;
    }
    const total = performance.now() - t0;
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    // The demo model says a word every 250 ms after "[slow]": the first event comes long before the end.
    expect(total - firstEventAt).toBeGreaterThan(500);
  });
});
