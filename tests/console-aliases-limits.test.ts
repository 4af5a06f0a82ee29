/**
 * The admin console's aliases and organisation limits reach the running gateway at once: an
 * alias made in Admin → Aliases serves requests and is listed, a bad one is refused naming the
 * field, a deleted one is gone; limits set in Admin → Users apply to the user's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let admin: Session;
let user: Session;
let userId: string;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await signUp(server);
  user = await signUp(server);
  key = (await user.json("/api/console/keys", { method: "POST", body: { name: "k", allowedModels: [] } })).body.key.key;
  userId = (await user.json("/api/console/me")).body.user.id;
  await admin.json(`/api/admin/users/${userId}/balance`, { method: "POST", body: { direction: "credit", usd: "1" } });
}, 180_000);
afterAll(async () => {
  await server?.dispose();
});

const chat = (model: string, extra: Record<string, unknown> = {}) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, max_tokens: 20, messages: [{ role: "user", content: "hi" }], ...extra }),
  });
const listed = async () => ((await (await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string }[] }).data.map((m) => m.id);

describe("Admin → Aliases", () => {
  it("an alias serves at once, is listed, and is gone when deleted; a pattern maps a family", async () => {
    expect((await admin.json("/api/admin/aliases", { method: "POST", body: { id: "house-chat", targets: ["demo-chat"] } })).status).toBe(200);
    expect((await admin.json("/api/admin/aliases", { method: "POST", body: { id: "demo-chat-*", targets: ["demo-chat"] } })).status).toBe(200);
    const r = await chat("house-chat");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-gateway-model")).toBe("demo-chat");
    expect((await chat("demo-chat-20250101")).headers.get("x-gateway-model")).toBe("demo-chat");
    expect(await listed()).toContain("house-chat");
    const items = (await admin.json("/api/admin/aliases")).body.items as { id: string; targets: string[] }[];
    expect(items.map((a) => a.id)).toEqual(["demo-chat-*", "house-chat"]);
    expect((await admin.json(`/api/admin/aliases/${encodeURIComponent("demo-chat-*")}`, { method: "DELETE" })).status).toBe(200);
    expect((await admin.json(`/api/admin/aliases/house-chat`, { method: "DELETE" })).status).toBe(200);
    expect((await chat("house-chat")).status).toBe(404);
    expect(await listed()).not.toContain("house-chat");
  });

  it("refuses unknown targets and a model's own id, naming the field; users cannot manage aliases", async () => {
    const bad = await admin.json("/api/admin/aliases", { method: "POST", body: { id: "x", targets: ["no-such-model"] } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/targets/);
    const clash = await admin.json("/api/admin/aliases", { method: "POST", body: { id: "demo-chat", targets: ["demo-chat"] } });
    expect(clash.status).toBe(400);
    expect((await user.json("/api/admin/aliases", { method: "POST", body: { id: "y", targets: ["demo-chat"] } })).status).toBe(403);
  });
});

describe("Keys: a key's own tokens-per-minute and concurrency", () => {
  it("are set in the console, listed, and obeyed", async () => {
    const created = await user.json("/api/console/keys", { method: "POST", body: { name: "tight", allowedModels: [], tpm: "5", maxConcurrent: "2" } });
    expect(created.status).toBe(200);
    const tight = created.body.key.key as string;
    const listedKeys = (await user.json("/api/console/keys")).body.items as { name: string; tpm: number | null; maxConcurrent: number | null }[];
    expect(listedKeys.find((k) => k.name === "tight")).toMatchObject({ tpm: 5, maxConcurrent: 2 });
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tight}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-chat", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBe(429);
    expect((await r.json()).error.message).toMatch(/key/);
    // Embeddings count their input tokens against the same limit.
    const embed = (input: string) =>
      fetch(`${server.url}/v1/embeddings`, { method: "POST", headers: { authorization: `Bearer ${tight}`, "content-type": "application/json" }, body: JSON.stringify({ model: "demo-embed", input }) });
    const small = await embed("hi");
    expect(small.status).toBe(200);
    expect(small.headers.get("x-ratelimit-limit-tokens")).toBe("5");
    expect((await embed("a much longer input that cannot fit in five tokens at all")).status).toBe(429);
  });
});

describe("Admin → Users → Limits", () => {
  it("sets the organisation's limits; its keys obey them; clearing removes them", async () => {
    const set = await admin.json(`/api/admin/users/${userId}/limits`, { method: "PUT", body: { tpm: 10 } });
    expect(set.status).toBe(200);
    const row = ((await admin.json("/api/admin/users")).body.items as { id: string; tpm: number | null }[]).find((u) => u.id === userId)!;
    expect(row.tpm).toBe(10);
    const refused = await chat("demo-chat");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit-tokens")).toBe("10");
    expect((await refused.json()).error.message).toMatch(/account/);
    expect((await admin.json(`/api/admin/users/${userId}/limits`, { method: "PUT", body: { tpm: 0 } })).status).toBe(400);
    expect((await admin.json(`/api/admin/users/${userId}/limits`, { method: "PUT", body: { tpm: null } })).status).toBe(200);
    expect((await chat("demo-chat")).status).toBe(200);
  });
});
