/**
 * Single sign-on in Chromium, through the console's sign-in page: a real OpenID Provider
 * (oidc-provider with its own login and consent pages) and a SAML IdP stand-in that signs real
 * assertions (tests/support/saml-idp.ts) and posts them back from its page, as IdPs do. Both run
 * on loopback ports started here; the organisations' IdPs and verified domains are set through the
 * console API by the gateway admin (no server restart: per-organisation settings need no env).
 * Then "SSO required" makes the password sign-in of a member of that organisation refuse.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startOidcIdp, type TestIdp } from "../tests/support/oidc-idp";
import { authnRequestId, makeIdpKeys, samlResponse, type SamlKeys } from "../tests/support/saml-idp";
import { PASSWORD, signUpOrIn } from "./sign-in";

const BASE = () => process.env.E2E_BASE_URL!;
const stamp = Date.now();
const oidcDomain = `oidc-${stamp}.test`;
const samlDomain = `saml-${stamp}.test`;
const erin = `erin@${oidcDomain}`;
const sam = `sam@${samlDomain}`;
const SAML_IDP_ISSUER = "https://idp.saml.test/entity";

test.describe.configure({ mode: "serial" });

let oidc: TestIdp;
let keys: SamlKeys;
let samlIdp: http.Server;
let samlSso = "";
let acsUrl = "";
let samlEntityId = "";
let admin: Page;
let oidcOrg = "";

/** The SAML IdP's SSO endpoint: reads our AuthnRequest, shows a page whose button posts a signed Response to our ACS. */
async function startSamlIdp(): Promise<void> {
  samlIdp = http.createServer((req, res) => {
    const url = new URL(req.url!, "http://idp");
    if (url.pathname !== "/sso" || !url.searchParams.get("SAMLRequest")) {
      res.writeHead(404).end();
      return;
    }
    const b64 = samlResponse(keys, { issuer: SAML_IDP_ISSUER, audience: samlEntityId, recipient: acsUrl, inResponseTo: authnRequestId(url.href), nameId: sam, email: sam });
    const relay = url.searchParams.get("RelayState");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><title>Test IdP</title><form method="post" action="${acsUrl}">` +
        `<input type="hidden" name="SAMLResponse" value="${b64}">` +
        (relay ? `<input type="hidden" name="RelayState" value="${relay.replace(/"/g, "&quot;")}">` : "") +
        `<button type="submit">Continue to the gateway</button></form>`,
    );
  });
  await new Promise<void>((r) => samlIdp.listen(0, "127.0.0.1", r));
  samlSso = `http://127.0.0.1:${(samlIdp.address() as AddressInfo).port}/sso`;
}

/** A fresh browser context that never leaves loopback (the provider's pages link a web font). */
async function freshPage(browser: Browser): Promise<Page> {
  const ctx = await browser.newContext({ baseURL: BASE() });
  await ctx.route(/^https?:\/\/(?!localhost[:/]|127\.0\.0\.1[:/])/, (r) => r.abort());
  return ctx.newPage();
}

async function api(page: Page, method: "POST" | "PATCH" | "PUT", path: string, data: unknown) {
  const res = await page.request.fetch(`${BASE()}${path}`, { method, headers: { origin: BASE() }, data });
  expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
  return res.json();
}

/** Creates a team organisation (made active), verifies a domain for it and sets its IdP. */
async function orgWithIdp(name: string, domain: string, idp: Record<string, string>) {
  const { org } = await api(admin, "POST", "/api/console/orgs", { name });
  await api(admin, "POST", "/api/console/orgs/identity/domains", { domain });
  const view = await api(admin, "PATCH", "/api/console/orgs/identity", { defaultRole: "member", ...idp });
  return { id: org.id as string, view };
}

async function me(page: Page) {
  return (await page.request.get(`${BASE()}/api/console/me`)).json();
}

test.beforeAll(async ({ browser }) => {
  oidc = await startOidcIdp({
    clients: [{ client_id: "gw-e2e", client_secret: "e2e-oidc-secret-123", redirect_uris: [`${BASE()}/api/auth/sso/oidc/callback`] }],
    accounts: { erin: { email: erin, email_verified: true, name: "Erin" } },
  });
  keys = makeIdpKeys();
  await startSamlIdp();
  admin = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  oidcOrg = (await orgWithIdp(`SSO OIDC ${stamp}`, oidcDomain, { oidcIssuer: oidc.issuer, oidcClientId: "gw-e2e", oidcClientSecret: "e2e-oidc-secret-123" })).id;
  const saml = await orgWithIdp(`SSO SAML ${stamp}`, samlDomain, { samlEntryPoint: samlSso, samlIdpIssuer: SAML_IDP_ISSUER, samlIdpCert: keys.cert });
  acsUrl = saml.view.endpoints.samlAcsUrl;
  samlEntityId = saml.view.endpoints.samlEntityId;
});

test.afterAll(async () => {
  await oidc?.close();
  if (samlIdp) {
    samlIdp.closeAllConnections();
    await new Promise((r) => samlIdp.close(r));
  }
});

test("OIDC: Sign in with SSO goes through the provider's login and consent and lands signed in, a member of the domain's organisation", async ({ browser }) => {
  // Erin already has a password account: signing in through the organisation's IdP links it and joins the organisation.
  await (await signUpOrIn(browser, erin)).context().close();
  const page = await freshPage(browser);
  await page.goto("/signin");
  await page.getByTestId("sso-email").fill(erin);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(page).toHaveURL(new RegExp(`^${oidc.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill("erin");
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(new RegExp(`^${BASE()}/overview`));
  const who = await me(page);
  expect(who.user.email).toBe(erin);
  expect(who.org).toMatchObject({ id: oidcOrg, role: "member", personal: false });
  await page.context().close();
});

test("SAML: Sign in with SSO posts a signed assertion back from the IdP's page and lands signed in", async ({ browser }) => {
  const page = await freshPage(browser);
  await page.goto("/signin");
  await page.getByTestId("sso-email").fill(sam);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(page).toHaveURL(new RegExp(`^${samlSso}\\?SAMLRequest=`));
  await page.getByRole("button", { name: "Continue to the gateway" }).click();
  await expect(page).toHaveURL(new RegExp(`^${BASE()}/overview`));
  const who = await me(page);
  expect(who.user.email).toBe(sam);
  expect(who.org).toMatchObject({ name: `SSO SAML ${stamp}`, role: "member", personal: false });
  await page.context().close();
});

test("SSO required: a member's password sign-in is refused and says to use single sign-on", async ({ browser }) => {
  await api(admin, "PUT", "/api/console/orgs/active", { accountId: oidcOrg });
  await api(admin, "PATCH", "/api/console/orgs/identity", { ssoRequired: true });
  const page = await freshPage(browser);
  await page.goto("/signin");
  await page.getByLabel("Email", { exact: true }).fill(erin);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Your organisation requires single sign-on")).toBeVisible();
  await expect(page).toHaveURL(/\/signin/);
  // Single sign-on still works for them.
  await page.getByTestId("sso-email").fill(erin);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await page.locator('input[name="login"]').fill("erin");
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(new RegExp(`^${BASE()}/overview`));
  await page.context().close();
});
