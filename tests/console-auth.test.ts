/**
 * Console sign-in and session rules on the real server: argon2id hashes, uniform and
 * rate-limited sign-in failures, cross-site refusal on state-changing routes (including
 * `Origin: null`), and disabling or demoting a user taking effect on their next request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session, signUp } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let admin: Session;

beforeAll(async () => {
  server = await startTestServer();
  admin = await signUp(server);
}, 180_000);

afterAll(async () => {
  await server?.dispose();
});

describe("sign-up and passwords", () => {
  it("makes the first user admin and later users not, and stores argon2id hashes", async () => {
    expect((await admin.json("/api/console/me")).body.user.role).toBe("admin");
    const u = await signUp(server);
    expect((await u.json("/api/console/me")).body.user.role).toBe("user");
    const [row] = await server.query<{ password_hash: string }>("select password_hash from users where email = $1", [u.email]);
    expect(row!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it("refuses a taken email, a bad email and a short password, naming the field", async () => {
    const s = new Session(server, "x");
    const cases: [unknown, number, string][] = [
      [{ email: admin.email, password: "long enough password" }, 409, "email"],
      [{ email: "not-an-email", password: "long enough password" }, 400, "email"],
      [{ email: "fresh@example.test", password: "short" }, 400, "password"],
    ];
    for (const [body, status, field] of cases) {
      const r = await s.json("/api/signup", { method: "POST", body });
      expect(r.status).toBe(status);
      expect(r.body.error.field).toBe(field);
    }
  });
});

describe("sign-in", () => {
  it("answers a wrong password and an unknown email alike, then rate-limits", async () => {
    const u = await signUp(server);
    const fresh = () => new Session(server, u.email);
    expect(await fresh().signIn("wrong password")).toBe("CredentialsSignin");
    expect(await new Session(server, "nobody@example.test").signIn("wrong password")).toBe("CredentialsSignin");
    for (let i = 0; i < 4; i++) expect(await fresh().signIn("wrong password")).toBe("CredentialsSignin");
    // Five failures for this email from this address: even the right password waits now.
    expect(await fresh().signIn("correct horse battery staple")).toBe("RateLimited");
  });
});

describe("cross-site requests", () => {
  it("refuses foreign, null and missing Origin on state-changing routes and accepts our own", async () => {
    const u = await signUp(server);
    const body = { name: "csrf", allowedModels: [] };
    for (const origin of ["https://evil.example", "null", null, "http://localhost.evil.example"]) {
      const r = await u.json("/api/console/keys", { method: "POST", body, origin });
      expect(r.status, String(origin)).toBe(403);
      expect(r.body.error.code).toBe("cross_origin");
    }
    expect((await u.json("/api/console/keys")).body.items).toEqual([]);
    const ok = await u.json("/api/console/keys", { method: "POST", body });
    expect(ok.status).toBe(200);
    const del = await u.json(`/api/console/keys/${ok.body.key.id}`, { method: "DELETE", origin: "https://evil.example" });
    expect(del.status).toBe(403);
    expect((await u.json("/api/console/keys")).body.items[0].status).toBe("active");
    // The sign-up route is state-changing too.
    const su = await new Session(server, "x").json("/api/signup", { method: "POST", body: { email: "csrf@example.test", password: "long enough password" }, origin: "null" });
    expect(su.status).toBe(403);
  });
});

describe("sessions follow the database", () => {
  it("ends a disabled user's session and keys on the next request", async () => {
    const u = await signUp(server);
    const me = (await u.json("/api/console/me")).body.user;
    const key = (await u.json("/api/console/keys", { method: "POST", body: { name: "k", allowedModels: [] } })).body.key.key;
    expect((await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await admin.json(`/api/admin/users/${me.id}`, { method: "PATCH", body: { disabled: true } })).status).toBe(200);
    expect((await u.fetch("/api/console/me")).status).toBe(401);
    expect((await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).not.toBe(200);
    expect(await new Session(server, u.email).signIn("correct horse battery staple")).toBe("AccountDisabled");
  });

  it("ends a demoted admin's session at once; signed in again they get 403 on admin routes", async () => {
    const u = await signUp(server);
    const id = (await u.json("/api/console/me")).body.user.id;
    await admin.json(`/api/admin/users/${id}`, { method: "PATCH", body: { role: "admin" } });
    expect((await u.fetch("/api/admin/users")).status).toBe(200);
    await admin.json(`/api/admin/users/${id}`, { method: "PATCH", body: { role: "user" } });
    expect((await u.fetch("/api/admin/users")).status).toBe(401);
    const again = new Session(server, u.email);
    expect(await again.signIn("correct horse battery staple")).toBeNull();
    expect((await again.fetch("/api/admin/users")).status).toBe(403);
  });

  it("ends the session, and any copy of its cookie, at sign-out", async () => {
    const u = await signUp(server);
    const copied = u.cookieHeader();
    const replay = () => fetch(`${server.url}/api/console/me`, { headers: { cookie: copied } });
    expect((await replay()).status).toBe(200);
    const csrf = await u.json<{ csrfToken: string }>("/api/auth/csrf");
    const out = await fetch(`${server.url}/api/auth/signout`, {
      method: "POST",
      headers: { cookie: u.cookieHeader(), "content-type": "application/x-www-form-urlencoded", origin: u.origin },
      body: new URLSearchParams({ csrfToken: csrf.body.csrfToken, callbackUrl: "/signin", json: "true" }).toString(),
      redirect: "manual",
    });
    expect(out.status).toBeLessThan(400);
    expect((await replay()).status).toBe(401);
    // The console pages follow the same rule: the copied cookie is sent to sign-in.
    const page = await fetch(`${server.url}/overview`, { headers: { cookie: copied }, redirect: "manual" });
    expect([302, 303, 307, 308]).toContain(page.status);
    // Signing in again works and gives a fresh session.
    const again = new Session(server, u.email);
    expect(await again.signIn("correct horse battery staple")).toBeNull();
    expect((await again.fetch("/api/console/me")).status).toBe(200);
  });

  it("does not let an admin lock themselves out", async () => {
    const id = (await admin.json("/api/console/me")).body.user.id;
    const r = await admin.json(`/api/admin/users/${id}`, { method: "PATCH", body: { role: "user" } });
    expect(r.status).toBe(400);
  });
});

describe("payments switched off", () => {
  it("says top-ups are by admin credit and refuses checkout and webhooks", async () => {
    const u = await signUp(server);
    expect((await u.json("/api/console/billing")).body.stripeEnabled).toBe(false);
    const r = await u.json("/api/console/billing/checkout", { method: "POST", body: { amountCents: 1000 } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("payments_disabled");
    const hook = await fetch(`${server.url}/api/stripe/webhook`, { method: "POST", body: "{}" });
    expect(hook.status).toBe(404);
  });
});
