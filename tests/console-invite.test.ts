/**
 * SIGNUP=invite on the real server: sign-up needs an admin-made invite link (CLI or
 * POST /api/admin/invites), bound to an email when the admin says so, used once, unforgeable
 * and expiring; the sign-up page shows the form only with an invite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let admin: Session;
const PASSWORD = "correct horse battery staple";
const unique = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;

beforeAll(async () => {
  server = await startTestServer({ env: { SIGNUP: "invite" } });
  const email = unique("admin");
  const r = await server.admin("user", "create", "--email", email, "--password", PASSWORD, "--admin");
  expect(r.exitCode).toBe(0);
  admin = new Session(server, email);
  expect(await admin.signIn(PASSWORD)).toBeNull();
}, 180_000);
afterAll(async () => {
  await server?.dispose();
});

const signUp = (body: Record<string, unknown>) => new Session(server, "x").json("/api/signup", { method: "POST", body });
const token = (url: string) => new URL(url).searchParams.get("invite")!;

describe("SIGNUP=invite", () => {
  it("refuses sign-up without an invite and says how to get one; the page shows no form", async () => {
    const r = await signUp({ email: unique("none"), password: PASSWORD });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("signup_closed");
    expect(r.body.error.message).toMatch(/invitation/);
    const page = await (await fetch(`${server.url}/signup`)).text();
    expect(page).toContain("by invitation");
    expect(page).not.toContain("Create account");
  });

  it("accepts a CLI invite bound to an email once, for that email only", async () => {
    const email = unique("invited");
    const cli = await server.admin("invite", "create", "--email", email, "--days", "2");
    expect(cli.exitCode).toBe(0);
    const invite = token(cli.stdout.at(-1)!);
    const page = await (await fetch(`${server.url}/signup?invite=${encodeURIComponent(invite)}`)).text();
    expect(page).toContain("Create account");
    const other = await signUp({ email: unique("other"), password: PASSWORD, invite });
    expect(other.status).toBe(403);
    expect(other.body.error.field).toBe("email");
    expect((await signUp({ email, password: PASSWORD, invite })).status).toBe(201);
    expect(await new Session(server, email).signIn(PASSWORD)).toBeNull();
    const again = await signUp({ email: unique("again"), password: PASSWORD, invite });
    expect(again.status).toBe(403); // bound to the first email anyway
  });

  it("an open invite from the admin API works once, concurrently too; forged and tampered ones never", async () => {
    const made = await admin.json("/api/admin/invites", { method: "POST", body: { days: 1 } });
    expect(made.status).toBe(200);
    const invite = token(made.body.url);
    const results = await Promise.all([0, 1, 2, 3].map(() => signUp({ email: unique("race"), password: PASSWORD, invite })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403, 403]);
    expect(results.filter((r) => r.status === 403).every((r) => /already been used/.test(r.body.error.message))).toBe(true);
    const [body, sig] = invite.slice(4).split(".");
    const payload = JSON.parse(Buffer.from(body!, "base64url").toString());
    const longer = Buffer.from(JSON.stringify({ ...payload, x: payload.x + 86_400 * 365 })).toString("base64url");
    for (const forged of [`inv_${longer}.${sig}`, `inv_${body}.${sig!.slice(0, -2)}AA`, "inv_x.y", "nonsense"]) {
      const r = await signUp({ email: unique("forged"), password: PASSWORD, invite: forged });
      expect(r.status, forged).toBe(403);
      expect(r.body.error.field).toBe("invite");
    }
    // Only admins make invites.
    expect((await new Session(server, "anon").json("/api/admin/invites", { method: "POST", body: {} })).status).toBe(401);
  });
});

describe("SIGNUP=invite and organisation invitations", () => {
  it("an admin's pending organisation invitation lets its address (only it) sign up, then join", async () => {
    const email = unique("org-invitee");
    const inv = await admin.json("/api/console/orgs/invites", { method: "POST", body: { email, role: "member" } });
    expect(inv.status).toBe(200);
    const url = new URL(inv.body.invite.url);
    const orgToken = url.searchParams.get("token")!;
    expect(url.searchParams.get("signup")).toBeNull(); // no separate, unrevocable sign-up token
    // The accept page sends a signed-out visitor to sign up with the invitation itself.
    const page = await (await fetch(`${server.url}/join?${url.searchParams}`)).text();
    expect(page).toContain("join-signup");
    expect(page).toContain("invite=oinv_");
    expect((await signUp({ email: unique("someone-else"), password: PASSWORD, invite: orgToken })).status).toBe(403);
    const s = new Session(server, email);
    expect((await s.json("/api/signup", { method: "POST", body: { email, password: PASSWORD, invite: orgToken } })).status).toBe(201);
    expect(await s.signIn(PASSWORD)).toBeNull();
    const joined = await s.json("/api/console/join", { method: "POST", body: { token: orgToken } });
    expect(joined.status).toBe(200);
    expect((await s.json("/api/console/me")).body.org).toMatchObject({ role: "member" });
    expect((await s.json("/api/console/me")).body.org.id).toBe((await admin.json("/api/console/me")).body.org.id);
  });

  /** Every token an invitation's link carries. */
  const ticketsIn = (link: string) => {
    const u = new URL(link);
    return [u.searchParams.get("signup"), u.searchParams.get("token")].filter((t): t is string => !!t);
  };

  it("another user's invitation is not a sign-up ticket (issue 32, item 10)", async () => {
    const ownerEmail = unique("plain-owner");
    expect((await server.admin("user", "create", "--email", ownerEmail, "--password", PASSWORD)).exitCode).toBe(0);
    const owner = new Session(server, ownerEmail);
    expect(await owner.signIn(PASSWORD)).toBeNull();
    const email = unique("friend");
    const inv = await owner.json("/api/console/orgs/invites", { method: "POST", body: { email, role: "member" } });
    expect(inv.status).toBe(200);
    const tickets = ticketsIn(inv.body.invite.url);
    expect(tickets.length).toBeGreaterThan(0);
    for (const invite of tickets) {
      const r = await signUp({ email, password: PASSWORD, invite });
      expect(r.status, invite.slice(0, 5)).toBe(403);
      expect(r.body.error.code).toBe("signup_closed");
      expect(r.body.error.message).toMatch(/administrator/);
    }
    // The accept page offers no sign-up ticket either.
    const page = await (await fetch(`${server.url}/join?${new URL(inv.body.invite.url).searchParams}`)).text();
    expect(page).not.toContain("invite=");
  });

  it("an admin's invitation, once withdrawn, is not a sign-up ticket", async () => {
    const email = unique("withdrawn");
    const inv = await admin.json("/api/console/orgs/invites", { method: "POST", body: { email, role: "member" } });
    expect(inv.status).toBe(200);
    expect((await admin.json(`/api/console/orgs/invites/${inv.body.invite.id}`, { method: "DELETE" })).status).toBe(200);
    for (const invite of ticketsIn(inv.body.invite.url)) {
      const r = await signUp({ email, password: PASSWORD, invite });
      expect(r.status, invite.slice(0, 5)).toBe(403);
      expect(r.body.error.message).toMatch(/withdrawn/);
    }
  });

  it("an admin's invitation, once used, is not a sign-up ticket for anyone else", async () => {
    const email = unique("used");
    const inv = await admin.json("/api/console/orgs/invites", { method: "POST", body: { email, role: "member" } });
    const token = new URL(inv.body.invite.url).searchParams.get("token")!;
    const s = new Session(server, email);
    expect((await s.json("/api/signup", { method: "POST", body: { email, password: PASSWORD, invite: token } })).status).toBe(201);
    expect(await s.signIn(PASSWORD)).toBeNull();
    expect((await s.json("/api/console/join", { method: "POST", body: { token } })).status).toBe(200);
    const again = await signUp({ email: unique("late"), password: PASSWORD, invite: token });
    expect(again.status).toBe(403);
    expect(again.body.error.message).toMatch(/already been used/);
  });
});
