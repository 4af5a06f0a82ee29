/**
 * Email on the real server, through a real SMTP server on loopback: password reset and email
 * verification by single-use, expiring links (only a keyed hash stored), the same answer for
 * unknown addresses, sessions ended by a reset, rate limits, and no link in the server's log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session, signUp } from "./console-helpers";
import { linkIn, startSmtpInbox, type SmtpInbox } from "./fakes/smtp-inbox";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let inbox: SmtpInbox;
const PASSWORD = "correct horse battery staple";

beforeAll(async () => {
  inbox = await startSmtpInbox({ user: "gw", pass: "smtp-pass-123" });
  server = await startTestServer({ env: { SMTP_URL: inbox.url, EMAIL_FROM: "Gateway <no-reply@gateway.test>" } });
  server.secrets.add("smtp-pass-123");
}, 180_000);
afterAll(async () => {
  await server?.dispose();
  await inbox?.close();
});

const anon = () => new Session(server, "anon");
const tokenOf = (link: string) => new URL(link).hash.replace(/^#token=/, "");

describe("password reset", () => {
  it("emails a link that sets a new password once, ends every session, and verifies the email", async () => {
    const s = await signUp(server, { password: PASSWORD });
    const r = await anon().json("/api/password-reset", { method: "POST", body: { email: s.email.toUpperCase() } });
    expect(r.status).toBe(200);
    expect(r.body.message).toMatch(/If an account uses this email/);
    const mail = await inbox.waitFor(s.email, (m) => m.subject.startsWith("Reset"));
    expect(mail.from).toContain("no-reply@gateway.test");
    const link = linkIn(mail, `${server.env.PUBLIC_BASE_URL}/reset-password#token=`);
    const token = tokenOf(link);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only a keyed hash is stored.
    const rows = await server.query<{ token_hash: string }>("select token_hash from email_tokens where email = $1 and purpose = 'password_reset'", [s.email]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toContain(token);

    const short = await anon().json("/api/password-reset/confirm", { method: "POST", body: { token, password: "short" } });
    expect(short.status).toBe(400);
    expect(short.body.error.field).toBe("password");
    // Two tabs submitting at once: one wins.
    const both = await Promise.all(["new password one!", "new password two!"].map((password) => anon().json("/api/password-reset/confirm", { method: "POST", body: { token, password } })));
    expect(both.map((b) => b.status).sort()).toEqual([200, 400]);
    const winner = both[0]!.status === 200 ? "new password one!" : "new password two!";
    expect(both.find((b) => b.status === 400)!.body.error.message).toMatch(/not valid any more/);

    // The old session is gone, the old password too; the new one works.
    expect((await s.json("/api/console/me")).status).toBe(401);
    expect(await new Session(server, s.email).signIn(PASSWORD)).toBe("CredentialsSignin");
    const fresh = new Session(server, s.email);
    expect(await fresh.signIn(winner)).toBeNull();
    expect((await fresh.json("/api/console/email")).body).toMatchObject({ email: s.email, verified: true, emailAvailable: true });
    const audit = await server.query("select action from audit_log where target_id = (select id from users where email = $1) and action = 'user.password_reset'", [s.email]);
    expect(audit).toHaveLength(1);
  });

  it("answers the same for an unknown address and sends nothing", async () => {
    const before = inbox.messages.length;
    const r = await anon().json("/api/password-reset", { method: "POST", body: { email: "nobody-here@example.test" } });
    expect(r.status).toBe(200);
    expect(r.body.message).toMatch(/If an account uses this email/);
    await new Promise((res) => setTimeout(res, 300));
    expect(inbox.messages.slice(before).some((m) => m.to.includes("nobody-here@example.test"))).toBe(false);
  });

  it("refuses an expired link, and a reset spends the user's other open links", async () => {
    const s = await signUp(server, { password: PASSWORD });
    const resets = () => inbox.messages.filter((m) => m.to.includes(s.email) && m.subject.startsWith("Reset"));
    const nextLink = async (n: number) => {
      await anon().json("/api/password-reset", { method: "POST", body: { email: s.email } });
      await inbox.waitFor(s.email, () => resets().length === n);
      return tokenOf(linkIn(resets()[n - 1]!, server.env.PUBLIC_BASE_URL!));
    };
    const expiring = await nextLink(1);
    await server.query("update email_tokens set expires_at = now() - interval '1 second' where email = $1", [s.email]);
    const expired = await anon().json("/api/password-reset/confirm", { method: "POST", body: { token: expiring, password: "another password" } });
    expect(expired.status).toBe(400);
    const older = await nextLink(2);
    const newer = await nextLink(3);
    expect((await anon().json("/api/password-reset/confirm", { method: "POST", body: { token: newer, password: "another password" } })).status).toBe(200);
    expect((await anon().json("/api/password-reset/confirm", { method: "POST", body: { token: older, password: "a third password" } })).status).toBe(400);
    const open = await server.query("select 1 from email_tokens where email = $1 and used_at is null and purpose = 'password_reset'", [s.email]);
    expect(open).toHaveLength(0);
  });

  it("checks a link as the page opens without spending it: live, then spent, then expired", async () => {
    const s = await signUp(server, { password: PASSWORD });
    const linkSent = async () => {
      const before = inbox.messages.length;
      await anon().json("/api/password-reset", { method: "POST", body: { email: s.email } });
      const mail = await inbox.waitFor(s.email, (m) => m.subject.startsWith("Reset") && inbox.messages.indexOf(m) >= before);
      return tokenOf(linkIn(mail, `${server.env.PUBLIC_BASE_URL}/reset-password#token=`));
    };
    const check = (token: string) => anon().json("/api/password-reset/check", { method: "POST", body: { token } });
    const token = await linkSent();
    expect(await check(token)).toMatchObject({ status: 200, body: { valid: true } });
    expect((await check(token)).status).toBe(200); // checking spent nothing
    expect((await anon().json("/api/password-reset/confirm", { method: "POST", body: { token, password: "a checked new password" } })).status).toBe(200);
    const spent = await check(token);
    expect(spent.status).toBe(400);
    expect(spent.body.error).toMatchObject({ field: "token", message: expect.stringMatching(/not valid any more/) });

    const expiring = await linkSent();
    await server.query("update email_tokens set expires_at = now() - interval '1 second' where email = $1 and used_at is null", [s.email]);
    expect((await check(expiring)).status).toBe(400);
    expect((await check("A".repeat(43))).status).toBe(400);
  });

  it("limits reset requests per address with 429 and Retry-After", async () => {
    const s = await signUp(server, { password: PASSWORD });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 7; i++) {
      const res = await anon().fetch("/api/password-reset", { method: "POST", body: { email: s.email } });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get("retry-after");
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it("refuses a cross-site request and a forged token", async () => {
    expect((await anon().json("/api/password-reset", { method: "POST", body: { email: "x@example.test" }, origin: "https://evil.test" })).status).toBe(403);
    const forged = await anon().json("/api/password-reset/confirm", { method: "POST", body: { token: "A".repeat(43), password: "long enough password" } });
    expect(forged.status).toBe(400);
    expect(forged.body.error.field).toBe("token");
  });
});

describe("email verification", () => {
  it("sends a link at sign-up; the link verifies once; the console can send another", async () => {
    const s = await signUp(server, { password: PASSWORD });
    const mail = await inbox.waitFor(s.email, (m) => m.subject.startsWith("Confirm"));
    const link = linkIn(mail, `${server.env.PUBLIC_BASE_URL}/verify-email#token=`);
    expect((await s.json("/api/console/email")).body.verified).toBe(false);
    const ok = await anon().json("/api/email-verification/confirm", { method: "POST", body: { token: tokenOf(link) } });
    expect(ok.status).toBe(200);
    expect(ok.body.email).toBe(s.email);
    expect((await s.json("/api/console/email")).body.verified).toBe(true);
    expect((await anon().json("/api/email-verification/confirm", { method: "POST", body: { token: tokenOf(link) } })).status).toBe(400);
    const again = await s.json("/api/console/email/verify", { method: "POST" });
    expect(again.body.message).toMatch(/already verified/);
  });

  it("a verification link is not a reset link", async () => {
    const s = await signUp(server, { password: PASSWORD });
    const mail = await inbox.waitFor(s.email, (m) => m.subject.startsWith("Confirm"));
    const r = await anon().json("/api/password-reset/confirm", { method: "POST", body: { token: tokenOf(linkIn(mail, server.env.PUBLIC_BASE_URL!)), password: "taken over password" } });
    expect(r.status).toBe(400);
    expect(await new Session(server, s.email).signIn(PASSWORD)).toBeNull();
  });

  it("the console route sends a fresh link when asked", async () => {
    const s = await signUp(server, { password: PASSWORD });
    await inbox.waitFor(s.email, (m) => m.subject.startsWith("Confirm"));
    const r = await s.json("/api/console/email/verify", { method: "POST" });
    expect(r.status).toBe(200);
    await inbox.waitFor(s.email, () => inbox.messages.filter((m) => m.to.includes(s.email) && m.subject.startsWith("Confirm")).length === 2);
  });
});

describe("logs", () => {
  it("never holds a link's token", async () => {
    const logs = server.logs();
    for (const m of inbox.messages) {
      const t = m.text.match(/#token=([A-Za-z0-9_-]+)/)?.[1];
      if (t) expect(logs).not.toContain(t);
    }
  });
});

describe("without SMTP_URL in production", () => {
  it("says the gateway does not send email and the sign-in page keeps the admin CLI line", async () => {
    const off = await startTestServer({ env: { SMTP_URL: undefined } });
    try {
      const r = await new Session(off, "x").json("/api/password-reset", { method: "POST", body: { email: "a@example.test" } });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe("email_disabled");
      expect(await (await fetch(`${off.url}/forgot-password`)).text()).toContain("does not send email");
      expect(await (await fetch(`${off.url}/signin`)).text()).toContain("user set-password");
    } finally {
      await off.dispose();
    }
  });
});
