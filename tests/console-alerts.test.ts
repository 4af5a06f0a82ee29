/**
 * Alert settings through the real server (decision 0029): owners and billing members read and
 * change them, a member gets 403; the webhook URL is checked with the SSRF rules when saved and
 * its secret is shown once; "send test alert" reaches the webhook signed; the threshold set here
 * makes the database raise a low-balance alert on the next crossing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifySignature } from "../lib/tasks/webhook-signature";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { signUp, type Session } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let receiver: WebhookReceiver;
let owner: Session;
let member: Session;
let billing: Session;
let teamId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: receiver.hostPort } });
  await signUp(server);
  owner = await signUp(server);
  member = await signUp(server);
  billing = await signUp(server);
  teamId = (await owner.json("/api/console/orgs", { method: "POST", body: { name: "Team" } })).body.org.id;
  for (const [s, role] of [
    [member, "member"],
    [billing, "billing"],
  ] as const) {
    const inv = await owner.json("/api/console/orgs/invites", { method: "POST", body: { email: s.email, role } });
    const token = new URL(inv.body.invite.url).searchParams.get("token")!;
    expect((await s.json("/api/console/join", { method: "POST", body: { token } })).status).toBe(200);
  }
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
});

describe("alert settings", () => {
  it("defaults; a member may not read or change them", async () => {
    const r = await owner.json("/api/console/billing/alerts");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ lowBalanceThresholdMicroUsd: null, email: true, webhookUrl: null, recent: [] });
    expect((await member.json("/api/console/billing/alerts")).status).toBe(403);
    expect((await member.json("/api/console/billing/alerts", { method: "PUT", body: { email: false } })).status).toBe(403);
    expect((await member.json("/api/console/billing/alerts/test", { method: "POST" })).status).toBe(403);
  });

  it("refuses a private webhook URL and unknown fields with 400", async () => {
    const bad = await billing.json("/api/console/billing/alerts", { method: "PUT", body: { webhookUrl: "http://10.0.0.1/hook" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^webhookUrl: /);
    expect((await billing.json("/api/console/billing/alerts", { method: "PUT", body: { nope: 1 } })).status).toBe(400);
    expect((await billing.json("/api/console/billing/alerts", { method: "PUT", body: {} })).status).toBe(400);
  });

  it("saves URL (secret once) and threshold; a test alert and a low-balance crossing reach the webhook signed", async () => {
    const saved = await billing.json("/api/console/billing/alerts", { method: "PUT", body: { webhookUrl: `${receiver.url}/a`, lowBalanceThresholdMicroUsd: 2_000_000 } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.webhookSecret).toMatch(/^whsec_/);
    const again = await owner.json("/api/console/billing/alerts");
    expect(again.body.webhookSecret).toBeUndefined();
    expect(again.body).toMatchObject({ webhookUrl: `${receiver.url}/a`, lowBalanceThresholdMicroUsd: 2_000_000 });

    const t = await owner.json("/api/console/billing/alerts/test", { method: "POST" });
    expect(t.status).toBe(200);
    const [hook] = await receiver.waitFor(1, 15_000);
    expect(hook.json).toMatchObject({ id: t.body.id, type: "alert.test", organisation_id: teamId });
    const header = hook.headers["x-shim-signature"] as string;
    expect(verifySignature(header, hook.rawBody, saved.body.webhookSecret).ok).toBe(true);
    expect(verifySignature(header, hook.rawBody, "whsec_other").ok).toBe(false);

    // 3 USD in, 1.5 USD out: the balance crosses 2 USD once.
    await server.query("update accounts set balance_micro_usd = balance_micro_usd + 3000000 where id = $1", [teamId]);
    await server.query("update accounts set balance_micro_usd = balance_micro_usd - 1500000 where id = $1", [teamId]);
    await server.query("update accounts set balance_micro_usd = balance_micro_usd - 100 where id = $1", [teamId]);
    const hooks = await receiver.waitFor(2, 15_000);
    expect(hooks[1].json).toMatchObject({ type: "alert.low_balance", organisation_id: teamId, data: { balance_micro_usd: 1_500_000, threshold_micro_usd: 2_000_000 } });
    const list = await billing.json("/api/console/billing/alerts");
    expect(list.body.recent.map((a: { kind: string }) => a.kind).sort()).toEqual(["low_balance", "test"]);
  });
});
