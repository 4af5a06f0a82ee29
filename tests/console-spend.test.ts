/**
 * One truth for money: after a refunded video (and a completed one, and text), every spend
 * figure the console shows — Overview, Usage totals, the daily chart, the requests list, the
 * usage CSV, per-key spend — equals what the ledger says left the account: credits − balance − held.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "./fakes/openai-video-upstream";
import { adminOk, createKey } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { apiClient, videoGatewayConfig } from "./video-config";

let server: TestServer;
let fake: FakeOpenAIVideoUpstream;
let s: Session;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  fake = await startFakeOpenAIVideoUpstream({ stepsToComplete: 2 });
  server = await startTestServer({ config: videoGatewayConfig(fake.baseUrl, fake.apiKey), env: { TASK_POLL_INTERVAL_MS: "150" } });
  s = await signUp(server);
  await adminOk(server, "credit", "--email", s.email, "--usd", "5");
  api = apiClient(server, await createKey(server, s.email));
}, 180_000);

afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});

/** micro-USD from a CSV cell like "0.250000". */
const microOf = (cell: string) => Math.round(Number(cell) * 1_000_000);

async function books(accountId: string) {
  const [a] = await server.query<{ balance: string; held: string }>("select balance_micro_usd as balance, held_micro_usd as held from accounts where id = $1", [accountId]);
  const [c] = await server.query<{ credits: string }>(
    "select coalesce(sum(delta_micro_usd), 0) as credits from ledger_entries where account_id = $1 and kind in ('topup', 'admin_credit')",
    [accountId],
  );
  return { credits: Number(c!.credits), balance: Number(a!.balance), held: Number(a!.held) };
}

describe("spend after a refunded video", () => {
  it("agrees on every screen, the CSV and per key with credits − balance − held", async () => {
    const failed = await api.submit({ model: "vid-a", prompt: "this one will [fail]", seconds: "10" });
    const done = await api.submit({ model: "vid-a", prompt: "this one finishes", seconds: "10" });
    expect([failed.status, done.status]).toEqual([200, 200]);
    const chat = await api.call("POST", "/v1/chat/completions", { model: "demo-chat", messages: [{ role: "user", content: "hello there" }] });
    expect(chat.status).toBe(200);
    await api.until(failed.json.id, ["failed"]);
    await api.until(done.json.id, ["completed"]);

    const me = (await s.json("/api/console/me")).body;
    const accountId: string = me.user.accountId;
    // Text leases go back to the account once idle; read the books then.
    let b = await books(accountId);
    for (let i = 0; i < 100 && b.held !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      b = await books(accountId);
    }
    const spent = b.credits - b.balance - b.held;
    // One paid video ($0.25) and a little text; the refunded video counts nothing.
    expect(spent).toBeGreaterThan(250_000);
    expect(spent).toBeLessThan(500_000);

    const overview = (await s.json("/api/console/overview")).body;
    expect(overview.last30d.costMicroUsd).toBe(spent);

    const usage = (await s.json("/api/console/usage?limit=200")).body;
    expect(usage.totals.costMicroUsd).toBe(spent);
    expect(usage.items.reduce((n: number, r: { costMicroUsd: number }) => n + r.costMicroUsd, 0)).toBe(spent);
    const refunded = usage.items.filter((r: { settlement: string }) => r.settlement === "refunded");
    expect(refunded).toHaveLength(1);
    expect(refunded[0]).toMatchObject({ route: "/v1/videos", costMicroUsd: 0 });

    const daily = (await s.json("/api/console/usage/daily")).body;
    expect(daily.items.reduce((n: number, d: { costMicroUsd: number }) => n + d.costMicroUsd, 0)).toBe(spent);

    const csv = await (await s.fetch("/api/console/usage/export")).text();
    const [head, ...lines] = csv.trim().split("\r\n");
    const col = head!.split(",").indexOf("cost_usd");
    expect(lines.reduce((n, l) => n + microOf(l.split(",")[col]!), 0)).toBe(spent);

    const keys = (await s.json("/api/console/keys")).body.items as { spentMicroUsd: number; spend30dMicroUsd: number }[];
    expect(keys.reduce((n, k) => n + k.spend30dMicroUsd, 0)).toBe(spent);
    expect(keys.reduce((n, k) => n + k.spentMicroUsd, 0)).toBe(spent);
  });
});

describe("the request inspector's endpoints", () => {
  it("shows a refunded video's charge, refund, task and price, finds it from the task id; another account gets a 404", async () => {
    const usage = (await s.json("/api/console/usage?limit=200")).body;
    const refunded = usage.items.find((r: { settlement: string }) => r.settlement === "refunded");
    const d = await s.json(`/api/console/requests/${refunded.requestId}`);
    expect(d.status).toBe(200);
    expect(d.body.request).toMatchObject({ requestId: refunded.requestId, route: "/v1/videos", costMicroUsd: 0, settlement: "refunded", upstreamId: "vid", priceSnapshot: { perVideo: 250_000 } });
    expect(d.body.request.accountId).toBeUndefined();
    expect(d.body.ledger.map((l: { kind: string; deltaMicroUsd: number }) => `${l.kind}:${l.deltaMicroUsd}`)).toEqual(["charge:-250000", "refund:250000"]);
    expect(d.body.task).toMatchObject({ status: "failed", costMicroUsd: 0, holdMicroUsd: 250_000 });
    expect(d.body.key).toMatchObject({ prefix: expect.any(String), last4: expect.any(String) });

    const chat = usage.items.find((r: { route: string }) => r.route === "/v1/chat/completions");
    const c = await s.json(`/api/console/requests/${chat.requestId}`);
    expect(c.body.ledger.length).toBeLessThanOrEqual(1);
    expect(c.body.task).toBeNull();
    // The arithmetic shown is billing's own: classes × snapshot prices, rounded up once = the charge.
    expect(c.body.textCost.roundedMicroUsd).toBe(chat.costMicroUsd);
    expect(c.body.textCost.lines.map((l: { label: string }) => l.label)).toEqual(["uncached input", "output"]);
    expect(d.body.textCost).toBeNull();

    const other = await signUp(server);
    expect((await other.json(`/api/console/requests/${refunded.requestId}`)).status).toBe(404);
    expect((await other.json("/api/console/requests/req_nope")).status).toBe(404);

    // A task id (a ledger refund names only the task) opens as the request that submitted it.
    const taskId: string = d.body.task.id;
    expect(await s.json(`/api/console/tasks/${taskId}`)).toMatchObject({ status: 200, body: { requestId: refunded.requestId } });
    expect((await other.json(`/api/console/tasks/${taskId}`)).status).toBe(404);
    expect((await s.json("/api/console/tasks/task_nope")).status).toBe(404);
  });
});
