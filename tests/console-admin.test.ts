/**
 * Admin changes through the console reach the running gateway without a restart: disabling a
 * model or its upstream removes it from /v1/models at once, a price change is what the next
 * request is charged, and an upstream's API key is stored encrypted, tested against a loopback
 * provider, and never returned or audited in clear.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let admin: Session;
let user: Session;
let key: string;
let provider: http.Server;
let providerUrl: string;
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  provider = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(req.headers.authorization === "Bearer upstream-secret-1" ? 200 : 401, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data: [] }));
  });
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  server = await startTestServer();
  admin = await signUp(server);
  user = await signUp(server);
  key = (await user.json("/api/console/keys", { method: "POST", body: { name: "k", allowedModels: [] } })).body.key.key;
  const id = (await user.json("/api/console/me")).body.user.id;
  await admin.json(`/api/admin/users/${id}/balance`, { method: "POST", body: { direction: "credit", usd: "1" } });
}, 180_000);

afterAll(async () => {
  await server?.dispose();
  await new Promise((r) => provider?.close(r));
});

async function listed(): Promise<string[]> {
  const r = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  return ((await r.json()) as { data: { id: string }[] }).data.map((m) => m.id);
}

async function modelRow(modelId: string) {
  const rows = (await admin.json("/api/admin/models")).body.items as { id: string; modelId: string; price: unknown }[];
  return rows.find((m) => m.modelId === modelId)!;
}

describe("catalog changes apply at once", () => {
  it("disabling and enabling a model", async () => {
    const row = await modelRow("demo-embed");
    expect(await listed()).toContain("demo-embed");
    expect((await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { enabled: false } })).status).toBe(200);
    expect(await listed()).not.toContain("demo-embed");
    const r = await fetch(`${server.url}/v1/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-embed", input: "x" }),
    });
    expect(r.status).toBe(404);
    await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { enabled: true } });
    expect(await listed()).toContain("demo-embed");
  });

  it("edits what /v1/models tells clients to size requests by, and refuses an unknown modality", async () => {
    const row = await modelRow("demo-chat");
    const upd = await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { contextWindow: 65536, inputModalities: ["text", "pdf"], defaultMaxTokens: 2048 } });
    expect(upd.status).toBe(200);
    const r = await fetch(`${server.url}/v1/models/demo-chat`, { headers: { authorization: `Bearer ${key}` } });
    expect(await r.json()).toMatchObject({ context_window: 65536, max_output_tokens: 2048, input_modalities: ["text", "pdf"] });
    const g = await fetch(`${server.url}/v1beta/models/demo-chat`, { headers: { "x-goog-api-key": key } });
    expect(await g.json()).toMatchObject({ inputTokenLimit: 65536, outputTokenLimit: 2048 });
    const bad = await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { inputModalities: ["smell"] } });
    expect(bad.status).toBe(400);
    await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { contextWindow: 32768, inputModalities: ["text", "image"], defaultMaxTokens: 1024 } });
  });

  it("charges the next request at a new price", async () => {
    const row = await modelRow("demo-image-mini");
    const upd = await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { price: { perImage: { "*": 0.05 } } } });
    expect(upd.status).toBe(200);
    const r = await fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-image-mini", prompt: "a lighthouse" }),
    });
    expect(r.status).toBe(200);
    expect(Number(r.headers.get("x-gateway-cost-usd"))).toBe(0.05);
    const audit = (await admin.json("/api/admin/audit")).body.items.find((e: { action: string }) => e.action === "model.update");
    // Before and after carry only what changed: here the price, in micro-USD.
    expect(audit.details).toEqual({ modelId: "demo-image-mini", before: { price: row.price }, after: { price: { perImage: { "*": 50_000 } } } });
  });

  it("refuses a price that does not fit the kind, naming the field", async () => {
    const row = await modelRow("demo-chat");
    const r = await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { price: { perVideo: 1 } } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe("price");
    // Cache and reasoning prices belong to text models only.
    const img = await modelRow("demo-image");
    const c = await admin.json(`/api/admin/models/${img.id}`, { method: "PATCH", body: { price: { perImage: { "*": 0.05 }, cacheReadPerMTok: 0.1 } } });
    expect(c.status).toBe(400);
    expect(c.body.error.field).toBe("price");
  });

  it("takes token-class prices for a text model and lists them, resolved, in /v1/models", async () => {
    const row = await modelRow("demo-chat");
    const price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWrite1hPerMTok: 6 };
    expect((await admin.json(`/api/admin/models/${row.id}`, { method: "PATCH", body: { price } })).status).toBe(200);
    const stored = (await admin.json("/api/admin/models")).body.items.find((m: { id: string }) => m.id === row.id).price;
    expect(stored).toEqual({ inputPerMTok: 3_000_000, outputPerMTok: 15_000_000, cacheReadPerMTok: 300_000, cacheWrite1hPerMTok: 6_000_000 });
    const r = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const chat = ((await r.json()) as { data: Array<{ id: string; pricing?: Record<string, number> }> }).data.find((m) => m.id === "demo-chat")!;
    // The 5-minute write has no price of its own: the input price.
    expect(chat.pricing).toEqual({ input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_5m_per_mtok: 3, cache_write_1h_per_mtok: 6, reasoning_per_mtok: 15 });
  });
});

describe("upstreams", () => {
  it("stores the key encrypted, tests the connection, and never shows the key", async () => {
    const created = await admin.json("/api/admin/upstreams", { method: "POST", body: { id: "loop", protocol: "openai", baseUrl: providerUrl, apiKey: "upstream-secret-1" } });
    expect(created.status).toBe(200);
    const test = await admin.json("/api/admin/upstreams/loop/test", { method: "POST" });
    expect(test.body).toMatchObject({ ok: true, status: 200 });
    expect(seen.at(-1)).toBe("Bearer upstream-secret-1");
    await admin.json("/api/admin/upstreams/loop", { method: "PATCH", body: { apiKey: "wrong" } });
    const bad = await admin.json("/api/admin/upstreams/loop/test", { method: "POST" });
    expect(bad.body).toMatchObject({ ok: false, status: 401 });
    expect(bad.body.message).toContain("refused the API key");
    // The audit entry says the key was replaced (never the key) and what else changed.
    await admin.json("/api/admin/upstreams/loop", { method: "PATCH", body: { timeoutMs: 5000 } });
    const audits = (await admin.json("/api/admin/audit?action=upstream.update")).body.items as { details: unknown }[];
    expect(audits.map((a) => a.details)).toEqual([
      { before: { timeoutMs: null }, after: { timeoutMs: 5000 } },
      { before: { apiKey: "set" }, after: { apiKey: "replaced" } },
    ]);
    for (const path of ["/api/admin/upstreams", "/api/admin/audit"]) {
      const text = await (await admin.fetch(path)).text();
      expect(text, path).not.toContain("upstream-secret-1");
      expect(text, path).not.toContain('"wrong"');
    }
    const [row] = await server.query<{ api_key_encrypted: string }>("select api_key_encrypted from upstreams where id = 'loop'");
    expect(row!.api_key_encrypted).toMatch(/^v1\./);
    const dup = await admin.json("/api/admin/upstreams", { method: "POST", body: { id: "loop", protocol: "openai", baseUrl: providerUrl } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.field).toBe("id");
  });

  it("disabling the demo upstream hides its models until it is enabled again", async () => {
    await admin.json("/api/admin/upstreams/demo", { method: "PATCH", body: { enabled: false } });
    expect(await listed()).toEqual([]);
    await admin.json("/api/admin/upstreams/demo", { method: "PATCH", body: { enabled: true } });
    expect(await listed()).toContain("demo-chat");
  });
});

describe("key edits", () => {
  it("are audited with what changed, before and after", async () => {
    const k = (await user.json("/api/console/keys", { method: "POST", body: { name: "ci", allowedModels: [] } })).body.key;
    expect((await user.json(`/api/console/keys/${k.id}`, { method: "PATCH", body: { name: "ci-2", limitUsd: "5" } })).status).toBe(200);
    const audit = (await admin.json(`/api/admin/audit?action=key.update&target=${k.id}`)).body.items[0];
    expect(audit.details).toEqual({ name: "ci", before: { name: "ci", limitMicroUsd: null }, after: { name: "ci-2", limitMicroUsd: 5_000_000 } });
  });
});

describe("admin balance changes", () => {
  it("credits once per form submission and never debits below zero", async () => {
    const id = (await user.json("/api/console/me")).body.user.id;
    const before = (await user.json("/api/console/me")).body.account.balanceMicroUsd;
    const body = { direction: "credit", usd: "2", note: "double click", idempotencyKey: "form-abcdef123" };
    await Promise.all([admin.json(`/api/admin/users/${id}/balance`, { method: "POST", body }), admin.json(`/api/admin/users/${id}/balance`, { method: "POST", body })]);
    const after = (await user.json("/api/console/me")).body.account.balanceMicroUsd;
    expect(after - before).toBe(2_000_000);
    const tooMuch = await admin.json(`/api/admin/users/${id}/balance`, { method: "POST", body: { direction: "debit", usd: "1000", note: "oops" } });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error.field).toBe("usd");
    const noNote = await admin.json(`/api/admin/users/${id}/balance`, { method: "POST", body: { direction: "debit", usd: "1" } });
    expect(noNote.status).toBe(400);
    expect(noNote.body.error.field).toBe("note");
    expect((await user.json("/api/console/me")).body.account.balanceMicroUsd).toBe(after);
  });
});

describe("admin credit of a team organisation", () => {
  it("lists a user's organisations and credits the team they pick, not the user's own; refuses an organisation they are not in", async () => {
    const owner = await signUp(server);
    const team = await owner.json("/api/console/orgs", { method: "POST", body: { name: "Admin-credited team" } });
    const teamId = team.body.org.id as string;
    const me = (await owner.json("/api/console/me")).body;
    const row = (await admin.json(`/api/admin/users?q=${encodeURIComponent(owner.email)}`)).body.items[0];
    expect(row.orgs.map((o: { name: string; personal: boolean }) => [o.name, o.personal])).toEqual([
      [expect.any(String), true],
      ["Admin-credited team", false],
    ]);
    const credited = await admin.json(`/api/admin/users/${me.user.id}/balance`, { method: "POST", body: { direction: "credit", usd: "7.25", note: "invoice 12", accountId: teamId } });
    expect(credited.status).toBe(200);
    expect(credited.body).toMatchObject({ applied: true, balanceAfterMicroUsd: 7_250_000 });
    const after = (await admin.json(`/api/admin/users?q=${encodeURIComponent(owner.email)}`)).body.items[0];
    expect(after.orgs.find((o: { id: string }) => o.id === teamId).balanceMicroUsd).toBe(7_250_000);
    expect(after.orgs.find((o: { personal: boolean }) => o.personal).balanceMicroUsd).toBe(0);
    // The owner sees it on the team's billing.
    expect((await owner.json("/api/console/me")).body.org).toMatchObject({ id: teamId });

    const other = await signUp(server);
    const otherTeam = (await other.json("/api/console/orgs", { method: "POST", body: { name: "Not theirs" } })).body.org.id as string;
    const refused = await admin.json(`/api/admin/users/${me.user.id}/balance`, { method: "POST", body: { direction: "credit", usd: "1", accountId: otherTeam } });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ message: "This user is not a member of that organisation.", field: "accountId" });
  });
});
