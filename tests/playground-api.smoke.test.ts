/**
 * The playground's route handlers on the real server: a console session is required, cross-site
 * requests are refused before anything reaches the gateway, and what gets through is the public
 * API itself — billed to the signed-in account, logged with source "playground" and no key,
 * streamed unbuffered (a Stop mid-stream is billed for the partial output only).
 * PGlite-safe (no server.query): everything is read back through console routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { adminOk } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let a: Session;
let b: Session;
let broke: Session;

const chatBody = (content: string, stream = false) => ({ model: "demo-chat", messages: [{ role: "user", content }], stream });

async function balanceMicro(s: Session): Promise<number> {
  return (await s.json("/api/console/me")).body.account.balanceMicroUsd;
}

async function usageRow(s: Session, requestId: string) {
  for (let i = 0; i < 40; i++) {
    const r = await s.json(`/api/playground/requests/${requestId}`);
    if (r.status === 200) return r.body;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`no request-log row for ${requestId}`);
}

beforeAll(async () => {
  server = await startTestServer();
  await signUp(server); // the first user is the admin; keep the others plain users
  a = await signUp(server);
  b = await signUp(server);
  broke = await signUp(server);
  await adminOk(server, "credit", "--email", a.email, "--usd", "5");
  await adminOk(server, "credit", "--email", b.email, "--usd", "5");
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

describe("access", () => {
  it("refuses every playground route without a session (401)", async () => {
    for (const [method, path] of [
      ["POST", "/api/playground/v1/chat/completions"],
      ["POST", "/api/playground/v1beta/models/demo-chat:streamGenerateContent?alt=sse"],
      ["GET", "/api/playground/v1/videos"],
      ["GET", "/api/playground/models"],
      ["GET", "/api/playground/requests/req_x"],
    ] as const) {
      const r = await fetch(`${server.url}${path}`, {
        method,
        headers: method === "POST" ? { origin: a.origin, "content-type": "application/json" } : {},
        body: method === "POST" ? JSON.stringify(chatBody("hi")) : undefined,
      });
      expect(r.status, `${method} ${path}`).toBe(401);
      expect((await r.json()).error.code).toBe("unauthenticated");
    }
  });

  it("does not take an API key instead of a session", async () => {
    const r = await fetch(`${server.url}/api/playground/v1/chat/completions`, {
      method: "POST",
      headers: { origin: a.origin, "content-type": "application/json", authorization: "Bearer sk-not-a-session" },
      body: JSON.stringify(chatBody("hi")),
    });
    expect(r.status).toBe(401);
  });

  it("refuses cross-site, null and missing Origin before the gateway runs (nothing billed, nothing logged)", async () => {
    const before = await balanceMicro(a);
    const usageBefore = (await a.json("/api/console/usage")).body.items.length;
    for (const origin of ["https://evil.example", "null", undefined]) {
      const r = await a.fetch("/api/playground/v1/chat/completions", { method: "POST", body: chatBody("hi"), origin: origin ?? null });
      expect(r.status, String(origin)).toBe(403);
      expect((await r.json()).error.code).toBe("cross_origin");
    }
    expect(await balanceMicro(a)).toBe(before);
    expect((await a.json("/api/console/usage")).body.items.length).toBe(usageBefore);
  });

  it("offers the generation routes only", async () => {
    expect((await a.fetch("/api/playground/v1/embeddings", { method: "POST", body: { model: "demo-embed", input: "x" } })).status).toBe(404);
    expect((await a.fetch("/api/playground/v1/models")).status).toBe(404);
  });
});

describe("billing and logging", () => {
  it("bills a chat to the signed-in account and logs it as a playground request with no key", async () => {
    const before = await balanceMicro(a);
    const r = await a.fetch("/api/playground/v1/chat/completions", { method: "POST", body: chatBody("Hello from the playground") });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.choices[0].message.content).toContain("demo model");
    const cost = Math.round(Number(r.headers.get("x-gateway-cost-usd")) * 1e6);
    expect(cost).toBeGreaterThan(0);
    expect(await balanceMicro(a)).toBe(before - cost);
    const requestId = r.headers.get("x-request-id")!;
    const row = await usageRow(a, requestId);
    expect(row).toMatchObject({ requestId, source: "playground", status: 200, costMicroUsd: cost, settlement: "completed" });
    const listed = (await a.json("/api/console/usage")).body.items.find((x: { requestId: string }) => x.requestId === requestId);
    expect(listed).toMatchObject({ source: "playground", keyId: null, model: "demo-chat" });
    // Another account cannot read it.
    expect((await b.json(`/api/playground/requests/${requestId}`)).status).toBe(404);
  });

  it("models come from the account's catalog with integer micro-USD prices", async () => {
    const r = await a.json("/api/playground/models");
    expect(r.status).toBe(200);
    expect(r.body.publicBaseUrl).toBe(server.env.PUBLIC_BASE_URL);
    const img = r.body.items.find((m: { id: string }) => m.id === "demo-image");
    expect(img.price.perImage["high:1536x1024"]).toBe(260_000);
    expect(r.body.items.map((m: { id: string }) => m.id)).not.toContain("demo-embed");
  });

  it("402 before any upstream call for an empty balance; unknown model is model_not_found", async () => {
    const r = await broke.fetch("/api/playground/v1/chat/completions", { method: "POST", body: chatBody("hi") });
    expect(r.status).toBe(402);
    expect((await r.json()).error.code).toBe("insufficient_user_quota");
    const m = await a.fetch("/api/playground/v1/chat/completions", { method: "POST", body: { ...chatBody("hi"), model: "no-such-model" } });
    expect(m.status).toBe(404);
    expect((await m.json()).error.code).toBe("model_not_found");
  });

  it("streams unbuffered with no-transform headers; a Stop mid-stream bills only the partial output", async () => {
    // The complete reply first, to know its size and price.
    const full = await a.fetch("/api/playground/v1/chat/completions", { method: "POST", body: chatBody("[slow] tell me a story about a lighthouse") });
    const fullRow = await usageRow(a, full.headers.get("x-request-id")!);
    await full.text();

    const ctl = new AbortController();
    const res = await fetch(`${server.url}/api/playground/v1/chat/completions`, {
      method: "POST",
      headers: { cookie: a.cookieHeader(), origin: a.origin, "content-type": "application/json" },
      body: JSON.stringify(chatBody("[slow] tell me a story about a lighthouse", true)),
      signal: ctl.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const requestId = res.headers.get("x-request-id")!;
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let text = "";
    // Read until two words arrived, then Stop: a buffered proxy would deliver nothing before the end.
    while ((text.match(/"content":"/g) ?? []).length < 2) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += dec.decode(value, { stream: true });
    }
    expect(text).not.toContain("[DONE]");
    ctl.abort();
    await reader.cancel().catch(() => undefined);
    let row = await usageRow(a, requestId);
    expect(row.source).toBe("playground");
    expect(row.settlement).toBe("client_disconnect");
    expect(row.outputTokens).toBeGreaterThanOrEqual(1);
    expect(row.outputTokens).toBeLessThan(fullRow.outputTokens);
    expect(row.costMicroUsd).toBeGreaterThan(0);
    expect(row.costMicroUsd).toBeLessThan(fullRow.costMicroUsd);
  });

  it("each chat protocol streams through its public route", async () => {
    const cases: [string, unknown, Record<string, string>, RegExp][] = [
      ["/api/playground/v1/responses", { model: "demo-chat", input: "hi", stream: true }, {}, /response\.output_text\.delta/],
      ["/api/playground/v1/messages", { model: "demo-chat", max_tokens: 50, messages: [{ role: "user", content: "hi" }], stream: true }, { "anthropic-version": "2023-06-01" }, /content_block_delta/],
      ["/api/playground/v1beta/models/demo-chat:streamGenerateContent?alt=sse", { contents: [{ role: "user", parts: [{ text: "hi" }] }] }, {}, /"usageMetadata"/],
    ];
    for (const [path, body, headers, expected] of cases) {
      const r = await a.fetch(path, { method: "POST", body, headers });
      expect(r.status, path).toBe(200);
      expect(await r.text(), path).toMatch(expected);
      expect((await usageRow(a, r.headers.get("x-request-id")!)).source).toBe("playground");
    }
  });
});

describe("images and videos", () => {
  it("an image is billed at the listed price", async () => {
    const before = await balanceMicro(a);
    const r = await a.fetch("/api/playground/v1/images/generations", { method: "POST", body: { model: "demo-image", prompt: "a red circle", quality: "low", size: "1024x1024" } });
    expect(r.status).toBe(200);
    expect((await r.json()).data[0].b64_json.length).toBeGreaterThan(100);
    expect(Number(r.headers.get("x-gateway-cost-usd"))).toBe(0.021);
    expect(await balanceMicro(a)).toBe(before - 21_000);
    expect(await usageRow(a, r.headers.get("x-request-id")!)).toMatchObject({ source: "playground", costMicroUsd: 21_000 });
  });

  it("a video task is the account's: listed, polled to completion, its MP4 served with Range; other accounts see nothing", async () => {
    const created = await a.json("/api/playground/v1/videos", { method: "POST", body: { model: "demo-video", prompt: "waves", seconds: "10", size: "1280x720" } });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await a.json("/api/playground/v1/videos")).body.data.map((v: { id: string }) => v.id)).toContain(id);
    expect((await b.json(`/api/playground/v1/videos/${id}`)).status).toBe(404);
    expect((await b.json("/api/playground/v1/videos")).body.data).toEqual([]);
    let status = created.body.status;
    for (let i = 0; i < 60 && status !== "completed" && status !== "failed"; i++) {
      await new Promise((ok) => setTimeout(ok, 500));
      status = (await a.json(`/api/playground/v1/videos/${id}`)).body.status;
    }
    expect(status).toBe("completed");
    const part = await a.fetch(`/api/playground/v1/videos/${id}/content`, { headers: { range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toMatch(/^bytes 0-99\/\d+$/);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    expect((await b.fetch(`/api/playground/v1/videos/${id}/content`)).status).toBe(404);
  });
});
