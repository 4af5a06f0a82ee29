/**
 * Tenancy inside and across organisations, through the real server: an owner creates a team
 * organisation and invites a member, a billing user and an admin by link; each role sees only what
 * it may (a member: no ledger, no billing, no one else's keys or requests; billing: no keys), an
 * invitation works once and only for its address, and another organisation's ids are 404s — even
 * with a forged active-organisation cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let owner: Session;
let member: Session;
let billing: Session;
let admin: Session;
let outsider: Session;
let teamId: string;
let ownerKey: { id: string; key: string };
let memberKey: { id: string; key: string };
let ownerRequestId: string;
let memberRequestId: string;
let outsiderRequestId: string;
const userIds: Record<string, string> = {};

async function chat(key: string) {
  const r = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "demo-chat", messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: r.status, requestId: r.headers.get("x-request-id")!, body: (await r.json()) as any };
}

async function invite(email: string, role: string, monthlyCapUsd?: string): Promise<string> {
  const r = await owner.json("/api/console/orgs/invites", { method: "POST", body: { email, role, monthlyCapUsd } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  // No SMTP in this test server: the link comes back for the owner to pass on.
  return new URL(r.body.invite.url).searchParams.get("token")!;
}

async function credit(accountId: string, micro: number) {
  await server.query("update accounts set balance_micro_usd = balance_micro_usd + $2 where id = $1", [accountId, micro]);
  const [{ b }] = await server.query<{ b: string }>("select balance_micro_usd::text as b from accounts where id = $1", [accountId]);
  await server.query("insert into ledger_entries (account_id, delta_micro_usd, balance_after_micro_usd, kind, idempotency_key) values ($1, $2, $3, 'admin_credit', $4)", [
    accountId,
    micro,
    Number(b),
    `test-credit:${accountId}:${b}`,
  ]);
}

beforeAll(async () => {
  server = await startTestServer();
  await signUp(server); // the first user is the gateway admin; the rest are plain users
  owner = await signUp(server);
  member = await signUp(server);
  billing = await signUp(server);
  admin = await signUp(server);
  outsider = await signUp(server);
  for (const s of [owner, member, billing, admin, outsider]) userIds[s.email] = (await s.json("/api/console/me")).body.user.id;

  const created = await owner.json("/api/console/orgs", { method: "POST", body: { name: "Team" } });
  expect(created.status).toBe(200);
  teamId = created.body.org.id;
  expect((await owner.json("/api/console/me")).body.org).toMatchObject({ id: teamId, role: "owner", personal: false });
  await credit(teamId, 5_000_000);

  for (const [s, role] of [
    [member, "member"],
    [billing, "billing"],
    [admin, "admin"],
  ] as const) {
    const token = await invite(s.email, role);
    const joined = await s.json("/api/console/join", { method: "POST", body: { token } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect((await s.json("/api/console/me")).body.org).toMatchObject({ id: teamId, role });
  }

  ownerKey = (await owner.json("/api/console/keys", { method: "POST", body: { name: "owner-key", allowedModels: [] } })).body.key;
  memberKey = (await member.json("/api/console/keys", { method: "POST", body: { name: "member-key", allowedModels: [] } })).body.key;
  const o = await chat(ownerKey.key);
  const m = await chat(memberKey.key);
  expect([o.status, m.status]).toEqual([200, 200]);
  ownerRequestId = o.requestId;
  memberRequestId = m.requestId;

  const outsiderAccount = (await outsider.json("/api/console/me")).body.user.accountId;
  await credit(outsiderAccount, 1_000_000);
  const xKey = (await outsider.json("/api/console/keys", { method: "POST", body: { name: "x", allowedModels: [] } })).body.key;
  outsiderRequestId = (await chat(xKey.key)).requestId;
}, 180_000);

afterAll(async () => {
  await server?.dispose();
});

describe("a member", () => {
  it("cannot read the ledger, billing, webhooks or the member list, nor invite", async () => {
    for (const path of ["/api/console/ledger", "/api/console/ledger?format=csv", "/api/console/billing", "/api/console/webhooks", "/api/console/orgs/members", "/api/console/orgs/invites"]) {
      const r = await member.json(path);
      expect(r.status, path).toBe(403);
      expect(r.body.error.code, path).toBe("forbidden");
    }
    const inv = await member.json("/api/console/orgs/invites", { method: "POST", body: { email: "x@example.com", role: "member" } });
    expect(inv.status).toBe(403);
    const me = (await member.json("/api/console/me")).body;
    expect(me.account).toBeNull();
    expect(me.member).toMatchObject({ monthlyCapMicroUsd: null });
    expect((await member.json("/api/console/overview")).body.balanceMicroUsd).toBeNull();
  });

  it("sees only their own keys and requests", async () => {
    const keys = (await member.json("/api/console/keys")).body.items.map((k: { id: string }) => k.id);
    expect(keys).toEqual([memberKey.id]);
    const usage = await member.json("/api/console/usage");
    const ids = usage.body.items.map((r: { requestId: string }) => r.requestId);
    expect(ids).toContain(memberRequestId);
    expect(ids).not.toContain(ownerRequestId);
    // Asking for someone else's requests by filter does not widen the view.
    const other = await member.json(`/api/console/usage?memberId=${userIds[owner.email]}&keyId=${ownerKey.id}`);
    expect(other.body.items).toEqual([]);
    const csv = await (await member.fetch("/api/console/usage/export")).text();
    expect(csv).toContain(memberRequestId);
    expect(csv).not.toContain(ownerRequestId);
    const overview = (await member.json("/api/console/overview")).body;
    expect(JSON.stringify(overview)).not.toContain(ownerRequestId);
    expect(overview.activeKeys).toBe(1);
  });

  it("gets 404 for the owner's key and request, and for another organisation's request", async () => {
    const attempts = [
      await member.fetch(`/api/console/keys/${ownerKey.id}`, { method: "DELETE" }),
      await member.fetch(`/api/console/keys/${ownerKey.id}/roll`, { method: "POST", body: { graceSeconds: 0 } }),
      await member.fetch(`/api/console/keys/${ownerKey.id}`, { method: "PATCH", body: { name: "mine" } }),
      await member.fetch(`/api/console/requests/${ownerRequestId}`),
      await member.fetch(`/api/playground/requests/${ownerRequestId}`),
      await member.fetch(`/api/console/requests/${outsiderRequestId}`),
    ];
    expect(attempts.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404]);
    expect((await chat(ownerKey.key)).status).toBe(200);
    const own = await member.json(`/api/console/requests/${memberRequestId}`);
    expect(own.status).toBe(200);
    expect(own.body.ledger).toEqual([]); // the charge row carries the organisation's balance
  });

  it("can manage their own key", async () => {
    const r = await member.json(`/api/console/keys/${memberKey.id}`, { method: "PATCH", body: { name: "renamed" } });
    expect(r.status).toBe(200);
  });
});

describe("a billing user", () => {
  it("reads the ledger, billing and everyone's usage, but no keys", async () => {
    const ledger = await billing.json("/api/console/ledger");
    expect(ledger.status).toBe(200);
    expect(ledger.body.items.map((r: { kind: string }) => r.kind)).toEqual(expect.arrayContaining(["admin_credit", "charge"]));
    expect((await billing.json("/api/console/billing")).status).toBe(200);
    const usage = (await billing.json("/api/console/usage")).body.items.map((r: { requestId: string }) => r.requestId);
    expect(usage).toEqual(expect.arrayContaining([ownerRequestId, memberRequestId]));
    expect(usage).not.toContain(outsiderRequestId);
    expect((await billing.json("/api/console/keys")).status).toBe(403);
    expect((await billing.json("/api/console/keys", { method: "POST", body: { name: "b", allowedModels: [] } })).status).toBe(403);
    const members = await billing.json("/api/console/orgs/members");
    expect(members.status).toBe(200);
    expect(members.body.items).toHaveLength(4);
    expect((await billing.json(`/api/console/orgs/members/${userIds[member.email]}`, { method: "PATCH", body: { monthlyCapUsd: "1" } })).status).toBe(403);
  });
});

describe("an admin", () => {
  it("manages members but not owners", async () => {
    expect((await admin.json("/api/console/orgs/invites", { method: "POST", body: { email: "new-owner@example.com", role: "owner" } })).status).toBe(403);
    expect((await admin.json(`/api/console/orgs/members/${userIds[owner.email]}`, { method: "PATCH", body: { role: "member" } })).status).toBe(403);
    expect((await admin.json(`/api/console/orgs/members/${userIds[owner.email]}`, { method: "DELETE" })).status).toBe(403);
    const cap = await admin.json(`/api/console/orgs/members/${userIds[member.email]}`, { method: "PATCH", body: { monthlyCapUsd: "2.50" } });
    expect(cap.status).toBe(200);
    const m = (await admin.json("/api/console/orgs/members")).body.items.find((x: { userId: string }) => x.userId === userIds[member.email]);
    expect(m).toMatchObject({ role: "member", monthlyCapMicroUsd: 2_500_000, activeKeys: 1 });
    expect(m.monthSpentMicroUsd).toBeGreaterThan(0);
    // Every key of the organisation, with whose it is.
    const keys = (await admin.json("/api/console/keys")).body.items;
    expect(keys.map((k: { id: string }) => k.id).sort()).toEqual([memberKey.id, ownerKey.id].sort());
  });

  it("the owner cannot be demoted while they are the only owner", async () => {
    const r = await owner.json(`/api/console/orgs/members/${userIds[owner.email]}`, { method: "PATCH", body: { role: "admin" } });
    expect(r.status).toBe(409);
  });
});

describe("a member's monthly cap", () => {
  it("refuses the member's key with 402 naming the cap once reached; the owner's key still works", async () => {
    const set = await owner.json(`/api/console/orgs/members/${userIds[member.email]}`, { method: "PATCH", body: { monthlyCapUsd: "0.000001" } });
    expect(set.status).toBe(200);
    const r = await chat(memberKey.key);
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe("member_cap_exceeded");
    expect(r.body.error.message).toContain("$0.000001");
    expect((await chat(ownerKey.key)).status).toBe(200);
    // The playground spends through the member's own hidden key: the cap counts it too.
    const pg = await member.json("/api/playground/v1/chat/completions", { method: "POST", body: { model: "demo-chat", messages: [{ role: "user", content: "hi" }] } });
    expect(pg.status).toBe(402);
    expect(pg.body.error.code).toBe("member_cap_exceeded");
    const lifted = await owner.json(`/api/console/orgs/members/${userIds[member.email]}`, { method: "PATCH", body: { monthlyCapUsd: "" } });
    expect(lifted.status).toBe(200);
    expect((await chat(memberKey.key)).status).toBe(200);
  });
});

describe("budgets", () => {
  it("billing sets a daily budget on the member; their key gets 402 naming it; a member sees it but cannot change it", async () => {
    const set = await billing.json("/api/console/orgs/budgets", { method: "POST", body: { scope: "member", userId: userIds[member.email], period: "day", limitUsd: "0.000001" } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.budget).toMatchObject({ scope: "member", period: "day", target: member.email, limitMicroUsd: 1 });
    const r = await chat(memberKey.key);
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ code: "budget_exceeded", type: "insufficient_quota" });
    // The member spent today already (the budget starts from the day's spend): nothing is left.
    expect(set.body.budget.spentMicroUsd).toBeGreaterThan(1);
    expect(r.body.error.message).toMatch(/^Your daily budget \(\$0\.000001\) is reached for \d{4}-\d{2}-\d{2}\. It starts again next day in the organisation's time zone/);
    expect((await chat(ownerKey.key)).status).toBe(200);
    const pg = await member.json("/api/playground/v1/chat/completions", { method: "POST", body: { model: "demo-chat", messages: [{ role: "user", content: "hi" }] } });
    expect(pg.status).toBe(402);
    expect(pg.body.error.code).toBe("budget_exceeded");
    // The playground's key is nobody's to see, roll or budget.
    expect((await owner.json("/api/console/keys")).body.items.map((k: { name: string }) => k.name)).not.toContain("Playground");
    expect((await owner.json("/api/console/orgs/budgets")).body.targets.keys.map((k: { id: string }) => k.id).sort()).toEqual([memberKey.id, ownerKey.id].sort());
    // The member sees the budget that covers them, not the form's choices, and cannot change it.
    const seen = (await member.json("/api/console/orgs/budgets")).body;
    expect(seen).toMatchObject({ canManage: false, targets: null });
    expect(seen.items.map((b: { id: string }) => b.id)).toEqual([set.body.budget.id]);
    expect((await member.json("/api/console/orgs/budgets", { method: "POST", body: { scope: "organisation", period: "day", limitUsd: "100" } })).status).toBe(403);
    expect((await member.fetch(`/api/console/orgs/budgets/${set.body.budget.id}`, { method: "DELETE" })).status).toBe(403);
    // Another organisation's budget is a 404; a bad amount names its field.
    expect((await outsider.fetch(`/api/console/orgs/budgets/${set.body.budget.id}`, { method: "DELETE" })).status).toBe(404);
    const bad = await owner.json("/api/console/orgs/budgets", { method: "POST", body: { scope: "organisation", period: "week", limitUsd: "ten" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("limitUsd");
    expect((await owner.fetch(`/api/console/orgs/budgets/${set.body.budget.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await chat(memberKey.key)).status).toBe(200);
  });
});

describe("another organisation", () => {
  it("cannot be switched to or read with a forged cookie", async () => {
    const sw = await outsider.json("/api/console/orgs/active", { method: "PUT", body: { accountId: teamId } });
    expect(sw.status).toBe(404);
    outsider.cookies.set("gw-org", teamId);
    const me = (await outsider.json("/api/console/me")).body;
    expect(me.org.id).not.toBe(teamId);
    expect(me.org.personal).toBe(true);
    const keys = JSON.stringify((await outsider.json("/api/console/keys")).body);
    expect(keys).not.toContain(ownerKey.id);
    expect((await outsider.fetch(`/api/console/requests/${ownerRequestId}`)).status).toBe(404);
    outsider.cookies.delete("gw-org");
  });

  it("lists only the caller's organisations; switching back and forth changes the scope", async () => {
    const orgs = (await member.json("/api/console/orgs")).body;
    expect(orgs.items.map((o: { id: string }) => o.id)).toContain(teamId);
    expect(orgs.items).toHaveLength(2);
    const personal = orgs.items.find((o: { personal: boolean }) => o.personal).id;
    expect((await member.json("/api/console/orgs/active", { method: "PUT", body: { accountId: personal } })).status).toBe(200);
    expect((await member.json("/api/console/keys")).body.items).toEqual([]);
    expect((await member.json("/api/console/ledger")).status).toBe(200); // owner of their personal organisation
    expect((await member.json("/api/console/orgs/active", { method: "PUT", body: { accountId: teamId } })).status).toBe(200);
    expect((await member.json("/api/console/ledger")).status).toBe(403);
  });
});

describe("invitations", () => {
  it("work once, only for their address, and not after withdrawal", async () => {
    const token = await invite("late@example.com", "member");
    const wrong = await outsider.json("/api/console/join", { method: "POST", body: { token } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.message).toContain("late@example.com");
    const forged = await outsider.json("/api/console/join", { method: "POST", body: { token: `${token.slice(0, -3)}abc` } });
    expect(forged.status).toBe(404);
    const late = await signUp(server, { email: "late@example.com" });
    expect((await late.json("/api/console/join", { method: "POST", body: { token } })).status).toBe(200);
    const again = await late.json("/api/console/join", { method: "POST", body: { token } });
    expect(again.status).toBe(409);

    const t2 = await invite("withdrawn@example.com", "member");
    const list = (await owner.json("/api/console/orgs/invites")).body.items;
    const id = list.find((i: { email: string }) => i.email === "withdrawn@example.com").id;
    expect((await owner.json(`/api/console/orgs/invites/${id}`, { method: "DELETE" })).status).toBe(200);
    const w = await signUp(server, { email: "withdrawn@example.com" });
    const r = await w.json("/api/console/join", { method: "POST", body: { token: t2 } });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain("withdrawn");
  });

  it("removing a member revokes their keys in the organisation", async () => {
    const late = (await owner.json("/api/console/orgs/members")).body.items.find((m: { email: string }) => m.email === "late@example.com");
    expect((await owner.json(`/api/console/orgs/members/${late.userId}`, { method: "DELETE" })).status).toBe(200);
    const orgs = await owner.json("/api/console/orgs/members");
    expect(orgs.body.items.map((m: { email: string }) => m.email)).not.toContain("late@example.com");
  });
});

describe("settings, ownership and deletion", () => {
  it("checks the time zone; members cannot change settings", async () => {
    expect((await owner.json("/api/console/orgs/current", { method: "PATCH", body: { timeZone: "Mars/Olympus_Mons" } })).status).toBe(400);
    const ok = await owner.json("/api/console/orgs/current", { method: "PATCH", body: { timeZone: "Europe/Berlin", billingName: "Acme GmbH" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ timeZone: "Europe/Berlin", billingName: "Acme GmbH" });
    expect((await member.json("/api/console/orgs/current", { method: "PATCH", body: { name: "mine" } })).status).toBe(403);
    expect((await admin.json("/api/console/orgs/current", { method: "DELETE" })).status).toBe(403);
  });

  it("an owner hands ownership over; the organisation is deleted only once it holds no money", async () => {
    expect((await owner.json(`/api/console/orgs/members/${userIds[admin.email]}`, { method: "PATCH", body: { role: "owner" } })).status).toBe(200);
    expect((await owner.json(`/api/console/orgs/members/${userIds[owner.email]}`, { method: "PATCH", body: { role: "admin" } })).status).toBe(200);
    expect((await owner.json("/api/console/me")).body.org.role).toBe("admin");
    const refused = await admin.json("/api/console/orgs/current", { method: "DELETE" });
    expect(refused.status).toBe(409);
    await server.query("update accounts set balance_micro_usd = 0 where id = $1", [teamId]);
    const deleted = await admin.json("/api/console/orgs/current", { method: "DELETE" });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    // Everyone is back in their personal organisation; the team's keys stop working.
    for (const s of [owner, member, billing, admin]) {
      const me = (await s.json("/api/console/me")).body;
      expect(me.org.personal).toBe(true);
      expect(me.orgs.map((o: { id: string }) => o.id)).not.toContain(teamId);
    }
    expect((await chat(memberKey.key)).status).toBe(401);
    expect((await member.json("/api/console/orgs/active", { method: "PUT", body: { accountId: teamId } })).status).toBe(404);
  });
});
