/**
 * OIDC sign-in against a real OpenID Provider (oidc-provider on a random loopback port), driven
 * over HTTP as a browser would: our start redirect (PKCE S256, state, nonce), the provider's
 * login and consent pages, its redirect back, the code exchange and ID token check, and the
 * session cookie we set. The instance-wide provider (OIDC_* env) and an organisation's own;
 * the refusals (unverified email, another domain through an organisation's IdP, closed sign-up,
 * a replayed code, a state from another sign-in, no state cookie); the domain → organisation
 * mapping with its default role; and "SSO required" refusing password sign-in.
 * The Next route files are one-line mounts of these functions (app/api/auth/sso).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDb, type TestDb } from "../db/testing";
import { accounts, authAccounts, memberships, orgIdentity, ssoDomains, users } from "../db/schema";
import { startOidcIdp, type TestIdp } from "./support/oidc-idp";

const BASE = "http://127.0.0.1:9"; // the gateway's public URL: never contacted, the test calls the handlers
const CALLBACK = `${BASE}/api/auth/sso/oidc/callback`;

let t: TestDb;
let idp: TestIdp;
let acmeId: string;
let oidc: typeof import("../lib/sso/oidc");
let start: typeof import("../lib/sso/start");

beforeAll(async () => {
  idp = await startOidcIdp({
    clients: [
      { client_id: "gw-instance", client_secret: "instance-secret-123", redirect_uris: [CALLBACK] },
      { client_id: "gw-acme", client_secret: "acme-secret-456", redirect_uris: [CALLBACK] },
    ],
    accounts: {
      alice: { email: "Alice@acme.test", email_verified: true, name: "Alice" },
      bob: { email: "bob@other.test", email_verified: true },
      eve: { email: "eve@acme.test", email_verified: false },
      carol: { email: "carol@acme.test", email_verified: true },
      mallory: { email: "victim@other.test", email_verified: true },
    },
  });
  Object.assign(process.env, {
    PUBLIC_BASE_URL: BASE,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "oidc-test-")),
    ENCRYPTION_KEY: "oidc-test-encryption-key",
    AUTH_SECRET: "oidc-test-auth-secret",
    SIGNUP: "closed",
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: "gw-instance",
    OIDC_CLIENT_SECRET: "instance-secret-123",
    OIDC_NAME: "Test IdP",
  });
  t = await createTestDb();
  oidc = await import("../lib/sso/oidc");
  start = await import("../lib/sso/start");
  const { identityValues } = await import("../lib/sso/settings");
  acmeId = "acct_acmeoidc";
  await t.db.insert(accounts).values({ id: acmeId, name: "Acme" });
  await t.db.insert(ssoDomains).values({ domain: "acme.test", accountId: acmeId });
  await t.db.insert(orgIdentity).values({ accountId: acmeId, ...identityValues({ defaultRole: "billing", oidcIssuer: idp.issuer, oidcClientId: "gw-acme", oidcClientSecret: "acme-secret-456" }) });
  // Someone else already has an account at another domain: an organisation's IdP must not reach it.
  const { createUser } = await import("../lib/auth/users");
  await createUser(t.db, { email: "victim@other.test", password: "a long enough password", via: "signup" });
}, 60_000);

afterAll(async () => {
  await idp?.close();
  await t?.close();
});

function cookiesOf(res: Response): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const i = pair!.indexOf("=");
    m.set(pair!.slice(0, i), pair!.slice(i + 1));
  }
  return m;
}

/** Starts a sign-in (the instance's provider, or an organisation's), returns the redirect and the state cookie. */
async function begin(org: string | null) {
  const res = await oidc.startOidc(t.db, org, "/usage");
  expect(res.status).toBe(303);
  return { location: res.headers.get("location")!, state: `gw-sso-state=${cookiesOf(res).get("gw-sso-state")}` };
}

async function finish(callback: URL, stateCookie: string | null) {
  const res = await oidc.finishOidc(t.db, callback, stateCookie);
  const location = new URL(res.headers.get("location")!);
  return { status: res.status, location, error: location.searchParams.get("error"), cookies: cookiesOf(res) };
}

async function signIn(org: string | null, account: string) {
  const b = await begin(org);
  return finish(await idp.signInThrough(b.location, account, CALLBACK), b.state);
}

describe("OIDC sign-in", () => {
  it("sends PKCE S256, state and nonce to the provider", async () => {
    const b = await begin(null);
    const u = new URL(b.location);
    expect(u.origin).toBe(idp.issuer);
    expect(Object.fromEntries(u.searchParams)).toMatchObject({ client_id: "gw-instance", response_type: "code", code_challenge_method: "S256", redirect_uri: CALLBACK, scope: "openid email profile" });
    for (const p of ["state", "nonce", "code_challenge"]) expect(u.searchParams.get(p)!.length).toBeGreaterThanOrEqual(32);
    // The state cookie is sealed: none of the values are readable in it.
    expect(b.state).not.toContain(u.searchParams.get("state")!);
  });

  it("signs in a verified address with the instance provider, joining the organisation of its domain with the default role", async () => {
    const r = await signIn(null, "alice");
    expect(r.error).toBeNull();
    expect(r.location.href).toBe(`${BASE}/usage`);
    const [user] = await t.db.select().from(users).where(eq(users.email, "alice@acme.test"));
    expect(user).toBeDefined();
    const { decode } = await import("next-auth/jwt");
    const session = await decode({ token: r.cookies.get("next-auth.session-token")!, secret: "oidc-test-auth-secret" });
    expect(session).toMatchObject({ sub: user!.id, sv: user!.sessionVersion, email: "alice@acme.test" });
    expect(r.cookies.get("gw-org")).toBe(acmeId);
    const [m] = await t.db.select().from(memberships).where(and(eq(memberships.accountId, acmeId), eq(memberships.userId, user!.id)));
    expect(m?.role).toBe("billing");
    const [link] = await t.db.select().from(authAccounts).where(eq(authAccounts.userId, user!.id));
    expect(link).toMatchObject({ provider: "oidc:instance", providerAccountId: "alice" });
    // Signing in again finds the same user by the linked subject.
    expect((await signIn(null, "alice")).error).toBeNull();
    expect(await t.db.select().from(users).where(eq(users.email, "alice@acme.test"))).toHaveLength(1);
  });

  it("refuses an unverified email, and a new address outside any organisation while sign-up is closed", async () => {
    expect((await signIn(null, "eve")).error).toBe("SsoEmailUnverified");
    expect((await signIn(null, "bob")).error).toBe("SignupClosed");
    expect(await t.db.select().from(users).where(eq(users.email, "eve@acme.test"))).toHaveLength(0);
  });

  it("signs in through the organisation's own provider, found from the email's domain", async () => {
    const res = await start.startSsoForEmail(t.db, "Carol@ACME.test", "/keys");
    const u = new URL(res.headers.get("location")!);
    expect(u.searchParams.get("client_id")).toBe("gw-acme");
    const r = await finish(await idp.signInThrough(u.href, "carol", CALLBACK), `gw-sso-state=${cookiesOf(res).get("gw-sso-state")}`);
    expect(r.error).toBeNull();
    expect(r.location.pathname).toBe("/keys");
    const [link] = await t.db.select({ provider: authAccounts.provider }).from(authAccounts).innerJoin(users, eq(users.id, authAccounts.userId)).where(eq(users.email, "carol@acme.test"));
    expect(link?.provider).toBe(`oidc:${acmeId}`);
  });

  it("does not let an organisation's provider sign in an address outside the organisation's domains", async () => {
    expect((await signIn(acmeId, "mallory")).error).toBe("SsoWrongDomain");
    const [victim] = await t.db.select().from(users).where(eq(users.email, "victim@other.test"));
    expect(await t.db.select().from(authAccounts).where(eq(authAccounts.userId, victim!.id))).toHaveLength(0);
  });

  it("refuses a replayed code, a state from another sign-in, and a callback without the state cookie", async () => {
    const b = await begin(null);
    const callback = await idp.signInThrough(b.location, "alice", CALLBACK);
    expect((await finish(callback, b.state)).error).toBeNull();
    expect((await finish(callback, b.state)).error).toBe("SsoRefused");

    const first = await begin(null);
    const second = await begin(null);
    const cb2 = await idp.signInThrough(second.location, "alice", CALLBACK);
    expect((await finish(cb2, first.state)).error).toBe("SsoRefused");
    expect((await finish(cb2, null)).error).toBe("SsoExpired");
    expect((await finish(cb2, "gw-sso-state=v1.forged.value.here")).error).toBe("SsoExpired");
  });
});

describe("SSO required", () => {
  it("refuses password sign-in to members and to addresses of the organisation's domains, not to gateway admins", async () => {
    const { passwordSignInRefused } = await import("../lib/auth/sso-required");
    const [alice] = await t.db.select().from(users).where(eq(users.email, "alice@acme.test"));
    const [victim] = await t.db.select().from(users).where(eq(users.email, "victim@other.test"));
    expect(await passwordSignInRefused(t.db, alice!)).toBe(false);
    await t.db.update(orgIdentity).set({ ssoRequired: true }).where(eq(orgIdentity.accountId, acmeId));
    expect(await passwordSignInRefused(t.db, alice!)).toBe(true);
    expect(await passwordSignInRefused(t.db, { id: "usr_none", email: "new@acme.test", role: "user" })).toBe(true);
    expect(await passwordSignInRefused(t.db, victim!)).toBe(false);
    expect(await passwordSignInRefused(t.db, { ...alice!, role: "admin" })).toBe(false);
  });
});
