/**
 * Security headers on every kind of response (issue 12, item 8): pages carry a CSP whose
 * script nonce is fresh per response and is on every script Next renders, and no page can be
 * framed; the public API, console JSON routes, health and errors carry a CSP that allows
 * nothing, nosniff, X-Frame-Options and Referrer-Policy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "../console-helpers";
import { createAccount } from "../support/accounts";
import { startTestServer, type TestServer } from "../support/server";

let server: TestServer;
let user: Session;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server);
  ({ key } = await createAccount(server, { usd: 1 }));
});
afterAll(async () => {
  await server?.dispose();
});

function expectBase(r: Response, what: string) {
  expect(r.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(r.headers.get("x-frame-options"), what).toBe("DENY");
  expect(r.headers.get("referrer-policy"), what).toBe("same-origin");
  expect(r.headers.get("content-security-policy"), what).toMatch(/frame-ancestors 'none'/);
}

describe("security headers", () => {
  it("pages: a per-response nonce on every script, strict script-src, no framing", async () => {
    const nonces = new Set<string>();
    for (const [path, cookie] of [["/", ""], ["/signin", ""], ["/signup", ""], ["/overview", user.cookieHeader()], ["/keys", user.cookieHeader()], ["/playground", user.cookieHeader()], ["/no-such-page", ""]] as const) {
      const r = await fetch(`${server.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
      expectBase(r, path);
      const csp = r.headers.get("content-security-policy")!;
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      expect(nonce, `${path}: ${csp}`).toBeTruthy();
      expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'(;|$)/);
      expect(csp).not.toMatch(/unsafe-eval/);
      expect(csp).toMatch(/object-src 'none'/);
      expect(csp).toMatch(/connect-src 'self'(;|$)/);
      nonces.add(nonce!);
      if (r.status === 200 || r.status === 404) {
        const html = await r.text();
        const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
        expect(scripts.length, path).toBeGreaterThan(0);
        for (const s of scripts) expect(s, path).toContain(`nonce="${nonce}"`);
      }
    }
    expect(nonces.size).toBe(7); // fresh every time
  });

  it("public API, console JSON, auth, health: a CSP that allows nothing", async () => {
    const cases: [string, RequestInit][] = [
      ["/v1/models", { headers: { authorization: `Bearer ${key}` } }],
      ["/v1/models", {}],
      ["/v1/chat/completions", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: "{" }],
      ["/v1/no-such-route", {}],
      ["/v1beta/models", { headers: { "x-goog-api-key": key } }],
      ["/api/console/me", { headers: { cookie: user.cookieHeader() } }],
      ["/api/console/me", {}],
      ["/api/console/billing/checkout/cs_%FF", { headers: { cookie: user.cookieHeader() } }],
      ["/api/auth/csrf", {}],
      ["/healthz", {}],
      ["/readyz", {}],
    ];
    for (const [path, init] of cases) {
      const r = await fetch(`${server.url}${path}`, init);
      expectBase(r, path);
      expect(r.headers.get("content-security-policy"), path).toMatch(/^default-src 'none'/);
      await r.body?.cancel();
    }
  });
});
