/**
 * Tenancy and roles through every console route on the real server: a second user sees none of
 * the first user's keys, requests, ledger or tasks, cannot touch the first user's keys, and a
 * non-admin gets 403 from every admin route with no side effect.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let admin: Session;
let a: Session;
let b: Session;
let aUserId: string;
let aKey: { id: string; key: string };
let aRequestId: string;
let aTaskId: string;
let aDeliveryId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await signUp(server); // the first user is the admin
  a = await signUp(server);
  b = await signUp(server);
  aUserId = (await a.json("/api/console/me")).body.user.id;
  const created = await a.json("/api/console/keys", { method: "POST", body: { name: "a-key", allowedModels: [] } });
  expect(created.status).toBe(200);
  aKey = created.body.key;
  const credit = await admin.json(`/api/admin/users/${aUserId}/balance`, { method: "POST", body: { direction: "credit", usd: "5", note: "test credit" } });
  expect(credit.status).toBe(200);
  const chat = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${aKey.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "demo-chat", messages: [{ role: "user", content: "hello from a" }] }),
  });
  expect(chat.status).toBe(200);
  aRequestId = chat.headers.get("x-request-id")!;
  // Video tasks have their own issue; a row is enough to prove the console never shows it to B.
  const accountId = (await a.json("/api/console/me")).body.user.accountId;
  aTaskId = `task_${randomBytes(8).toString("hex")}`;
  await server.query("insert into tasks (id, account_id, model, status) values ($1, $2, 'demo-video', 'queued')", [aTaskId, accountId]);
  aDeliveryId = `whd_${randomBytes(8).toString("hex")}`;
  await server.query(
    "insert into webhook_deliveries (id, task_id, account_id, url, body, event_status, state, attempts) values ($1, $2, $3, 'https://a.example/hook', '{}', 'completed', 'delivered', 1)",
    [aDeliveryId, aTaskId, accountId],
  );
}, 180_000);

afterAll(async () => {
  await server?.dispose();
});

describe("the first user's own view", () => {
  it("lists the key (never the secret), the request, the ledger rows and the task", async () => {
    const keys = await a.fetch("/api/console/keys");
    const text = await keys.text();
    expect(text).not.toContain(aKey.key);
    expect(JSON.parse(text).items.map((k: { id: string }) => k.id)).toEqual([aKey.id]);
    const usage = await a.json("/api/console/usage");
    expect(usage.body.items.map((r: { requestId: string }) => r.requestId)).toContain(aRequestId);
    const ledger = await a.json("/api/console/ledger");
    expect(ledger.body.items.map((r: { kind: string }) => r.kind)).toEqual(expect.arrayContaining(["admin_credit", "charge"]));
    const tasks = await a.json("/api/console/tasks");
    expect(tasks.body.items.map((t: { id: string }) => t.id)).toEqual([aTaskId]);
    const hooks = await a.json("/api/console/webhooks");
    expect(hooks.body.items.map((d: { id: string }) => d.id)).toEqual([aDeliveryId]);
  });
});

describe("a second user", () => {
  it("sees none of the first user's keys, requests, ledger or tasks through any console route", async () => {
    const reads: [string, (body: any) => unknown][] = [
      ["/api/console/keys", (x) => x.items],
      ["/api/console/usage", (x) => x.items],
      [`/api/console/usage?keyId=${aKey.id}`, (x) => x.items],
      [`/api/console/usage?requestId=${aRequestId}`, (x) => x.items],
      ["/api/console/usage/daily", (x) => x.items],
      ["/api/console/ledger", (x) => x.items],
      ["/api/console/tasks", (x) => x.items],
      ["/api/console/webhooks", (x) => x.items],
      [`/api/console/webhooks?taskId=${aTaskId}`, (x) => x.items],
      ["/api/console/overview", (x) => [...x.recent, ...x.daily]],
    ];
    for (const [path, pick] of reads) {
      const r = await b.json(path);
      expect(r.status, path).toBe(200);
      expect(pick(r.body), path).toEqual([]);
      const raw = JSON.stringify(r.body);
      for (const secret of [aKey.id, aRequestId, aTaskId, aDeliveryId]) expect(raw, path).not.toContain(secret);
    }
    const totals = (await b.json("/api/console/usage")).body.totals;
    expect(totals).toMatchObject({ requests: 0, costMicroUsd: 0 });
    const me = (await b.json("/api/console/me")).body;
    expect(me.account.balanceMicroUsd).toBe(0);
    for (const path of ["/api/console/usage/export", "/api/console/ledger?format=csv"]) {
      const csv = await (await b.fetch(path)).text();
      expect(csv.trim().split("\r\n"), path).toHaveLength(1); // the header only
    }
  });

  it("cannot revoke, roll or edit the first user's key or resend their webhook; the key keeps working", async () => {
    const attempts = [
      await b.fetch(`/api/console/keys/${aKey.id}`, { method: "DELETE" }),
      await b.fetch(`/api/console/keys/${aKey.id}/roll`, { method: "POST", body: { graceSeconds: 0 } }),
      await b.fetch(`/api/console/keys/${aKey.id}`, { method: "PATCH", body: { name: "stolen" } }),
      await b.fetch(`/api/console/webhooks/${aDeliveryId}/resend`, { method: "POST" }),
    ];
    expect(attempts.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    const [{ n }] = await server.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where task_id = $1", [aTaskId]);
    expect(n).toBe(1);
    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${aKey.key}` } });
    expect(models.status).toBe(200);
    const keys = (await a.json("/api/console/keys")).body.items;
    expect(keys[0]).toMatchObject({ name: "a-key", status: "active" });
  });

  it("gets 403 from every admin route, with no side effect", async () => {
    const balanceBefore = (await a.json("/api/console/me")).body.account.balanceMicroUsd;
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/admin/users"],
      ["PATCH", `/api/admin/users/${aUserId}`, { disabled: true }],
      ["POST", `/api/admin/users/${aUserId}/balance`, { direction: "credit", usd: "100" }],
      ["GET", "/api/admin/upstreams"],
      ["POST", "/api/admin/upstreams", { id: "evil", protocol: "openai", baseUrl: "http://127.0.0.1:9/v1" }],
      ["PATCH", "/api/admin/upstreams/demo", { enabled: false }],
      ["POST", "/api/admin/upstreams/demo/test"],
      ["GET", "/api/admin/models"],
      ["POST", "/api/admin/models", { modelId: "x", upstreamId: "demo", kind: "text", ownedBy: "x", price: { inputPerMTok: 0, outputPerMTok: 0 } }],
      ["PATCH", "/api/admin/models/anything", { enabled: false }],
      ["GET", "/api/admin/audit"],
    ];
    for (const [method, path, body] of routes) {
      const r = await b.json(path, { method, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.code).toBe("forbidden");
    }
    expect((await a.json("/api/console/me")).body.account.balanceMicroUsd).toBe(balanceBefore);
    const ups = await admin.json("/api/admin/upstreams");
    expect(ups.body.items.map((u: { id: string }) => u.id)).not.toContain("evil");
    expect(ups.body.items.find((u: { id: string }) => u.id === "demo")?.enabled).toBe(true);
    const audit = await admin.json("/api/admin/audit");
    // B's own sign-up is recorded; nothing B attempted as an admin is.
    expect(audit.body.items.filter((e: { actor: string; action: string }) => e.actor === b.email).map((e: { action: string }) => e.action)).toEqual(["user.create"]);
  });

  it("without a session, every console and admin route answers 401", async () => {
    for (const path of ["/api/console/me", "/api/console/keys", "/api/console/usage", "/api/console/ledger", "/api/console/tasks", "/api/console/webhooks", "/api/admin/users"]) {
      const r = await fetch(`${server.url}${path}`);
      expect(r.status, path).toBe(401);
    }
    // An API key is not a console credential.
    const r = await fetch(`${server.url}/api/console/keys`, { headers: { authorization: `Bearer ${aKey.key}` } });
    expect(r.status).toBe(401);
  });
});
