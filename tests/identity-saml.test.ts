/**
 * SAML 2.0 sign-in with an organisation's IdP whose key and certificate are made for the test,
 * signing real assertions: the SP-initiated redirect, a valid response signing the person in
 * (domain → organisation, default role), and each refusal a security review asks for — a
 * replayed assertion, no or a foreign signature, a tampered assertion, the wrong audience,
 * recipient or issuer, an expired or not-yet-valid assertion, an unsolicited response, one
 * answering another sign-in, and an address outside the organisation's verified domains.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDb, type TestDb } from "../db/testing";
import { accounts, memberships, orgIdentity, ssoDomains, users } from "../db/schema";
import { authnRequestId, makeIdpKeys, samlResponse, type ResponseFields, type SamlKeys } from "./support/saml-idp";

const BASE = "http://127.0.0.1:9";
const ORG = "acct_acmesaml";
const IDP = "https://idp.acme.test/saml";
const ENTRY = "https://idp.acme.test/sso";

let t: TestDb;
let keys: SamlKeys;
let saml: typeof import("../lib/sso/saml");

beforeAll(async () => {
  keys = makeIdpKeys();
  Object.assign(process.env, {
    PUBLIC_BASE_URL: BASE,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "saml-test-")),
    ENCRYPTION_KEY: "saml-test-encryption-key",
    AUTH_SECRET: "saml-test-auth-secret",
    SIGNUP: "closed",
  });
  t = await createTestDb();
  saml = await import("../lib/sso/saml");
  const { identityValues } = await import("../lib/sso/settings");
  await t.db.insert(accounts).values({ id: ORG, name: "Acme" });
  await t.db.insert(ssoDomains).values({ domain: "acme.test", accountId: ORG });
  await t.db.insert(orgIdentity).values({ accountId: ORG, ...identityValues({ defaultRole: "admin", samlEntryPoint: ENTRY, samlIdpIssuer: IDP, samlIdpCert: keys.cert }) });
}, 60_000);

afterAll(async () => {
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

/** Starts a sign-in: the request id the IdP will answer, and the browser's state cookie. */
async function begin() {
  const res = await saml.startSaml(t.db, ORG, "/overview");
  expect(res.status).toBe(303);
  const location = res.headers.get("location")!;
  expect(location.startsWith(`${ENTRY}?SAMLRequest=`)).toBe(true);
  expect(res.headers.getSetCookie()[0]).toMatch(/SameSite=None; Secure/);
  return { requestId: authnRequestId(location), cookie: `gw-sso-state=${cookiesOf(res).get("gw-sso-state")}` };
}

function fields(requestId: string | null, over: Partial<ResponseFields> = {}): ResponseFields {
  const sp = saml.samlSp(ORG);
  return { issuer: IDP, audience: sp.entityId, recipient: sp.acsUrl, inResponseTo: requestId, nameId: "dana@acme.test", email: "dana@acme.test", ...over };
}

async function post(b64: string, cookie: string | null) {
  const form = new FormData();
  form.set("SAMLResponse", b64);
  const res = await saml.finishSaml(t.db, ORG, form, cookie);
  const location = new URL(res.headers.get("location")!);
  return { error: location.searchParams.get("error"), location, cookies: cookiesOf(res) };
}

describe("SAML sign-in", () => {
  it("serves SP metadata naming our entity id and ACS URL", async () => {
    const xml = await saml.samlMetadata(ORG);
    expect(xml).toContain(`entityID="${saml.samlSp(ORG).entityId}"`);
    expect(xml).toContain(`Location="${saml.samlSp(ORG).acsUrl}"`);
    expect(xml).toContain('WantAssertionsSigned="true"');
  });

  it("signs in a person from a signed assertion, with the organisation's default role, once", async () => {
    const b = await begin();
    const response = samlResponse(keys, fields(b.requestId));
    const r = await post(response, b.cookie);
    expect(r.error).toBeNull();
    expect(r.location.href).toBe(`${BASE}/overview`);
    expect(r.cookies.get("gw-org")).toBe(ORG);
    const [dana] = await t.db.select().from(users).where(eq(users.email, "dana@acme.test"));
    const { decode } = await import("next-auth/jwt");
    expect(await decode({ token: r.cookies.get("next-auth.session-token")!, secret: "saml-test-auth-secret" })).toMatchObject({ sub: dana!.id });
    const [m] = await t.db.select().from(memberships).where(and(eq(memberships.accountId, ORG), eq(memberships.userId, dana!.id)));
    expect(m?.role).toBe("admin");
    // The same assertion again (a captured POST replayed, even with the browser's cookie): refused.
    expect((await post(response, b.cookie)).error).toBe("SsoRefused");
  });

  it("refuses unsigned, foreign-signed and tampered assertions", async () => {
    const b = await begin();
    expect((await post(samlResponse(null, fields(b.requestId)), b.cookie)).error).toBe("SsoRefused");
    expect((await post(samlResponse(makeIdpKeys(), fields(b.requestId)), b.cookie)).error).toBe("SsoRefused");
    const tampered = samlResponse(keys, fields(b.requestId), (xml) => xml.replaceAll("dana@acme.test", "ceo@acme.test"));
    expect((await post(tampered, b.cookie)).error).toBe("SsoRefused");
    expect(await t.db.select().from(users).where(eq(users.email, "ceo@acme.test"))).toHaveLength(0);
  });

  it("refuses the wrong audience, recipient or issuer, and an expired or not-yet-valid assertion", async () => {
    const cases: Partial<ResponseFields>[] = [
      { audience: "https://someone-else.example/sp" },
      { recipient: `${BASE}/api/auth/sso/saml/acct_other/acs` },
      { issuer: "https://evil.example/idp" },
      { notBefore: new Date(Date.now() - 3_600_000), notOnOrAfter: new Date(Date.now() - 600_000) },
      { notBefore: new Date(Date.now() + 600_000), notOnOrAfter: new Date(Date.now() + 1_200_000) },
    ];
    for (const over of cases) {
      const b = await begin();
      expect((await post(samlResponse(keys, fields(b.requestId, over)), b.cookie)).error, JSON.stringify(over)).toBe("SsoRefused");
    }
  });

  it("refuses an unsolicited response, one answering another sign-in, and one without the state cookie", async () => {
    const b = await begin();
    expect((await post(samlResponse(keys, fields(null)), b.cookie)).error).toBe("SsoRefused");
    const other = await begin();
    expect((await post(samlResponse(keys, fields(other.requestId)), b.cookie)).error).toBe("SsoRefused");
    expect((await post(samlResponse(keys, fields(b.requestId)), null)).error).toBe("SsoExpired");
  });

  it("refuses an address outside the organisation's verified domains", async () => {
    const b = await begin();
    const r = await post(samlResponse(keys, fields(b.requestId, { nameId: "someone@other.test", email: "someone@other.test" })), b.cookie);
    expect(r.error).toBe("SsoWrongDomain");
  });
});
