/**
 * Organisation → Identity's use cases (lib/console/identity.ts; the routes under
 * app/api/console/orgs/identity are one-line mounts): the client secret is stored encrypted and
 * never shown or audited, every change is audited with before/after, "SSO required" needs an IdP
 * and a verified domain first, a domain belongs to one organisation, and personal organisations
 * have no SSO or SCIM.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, type TestDb } from "../db/testing";
import { accounts, auditLog, orgIdentity } from "../db/schema";
import type { SessionUser } from "../lib/views";

let t: TestDb;
let identity: typeof import("../lib/console/identity");
const owner = (accountId: string, role: "user" | "admin" = "user"): SessionUser => ({ id: "usr_owner", accountId, orgRole: "owner", personalAccountId: "acct_personal", email: "owner@acme.test", name: null, role });

beforeAll(async () => {
  Object.assign(process.env, { PUBLIC_BASE_URL: "https://gw.example", DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "identity-console-")), ENCRYPTION_KEY: "identity-console-key" });
  t = await createTestDb();
  identity = await import("../lib/console/identity");
  await t.db.insert(accounts).values([
    { id: "acct_team", name: "Team" },
    { id: "acct_other", name: "Other" },
    { id: "acct_personal", name: "owner@acme.test", personal: true },
  ]);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe("Organisation → Identity", () => {
  it("stores the client secret encrypted, never shows or audits it, and audits before/after", async () => {
    const view = await identity.updateIdentity(t.db, owner("acct_team"), { oidcIssuer: "https://login.acme.test", oidcClientId: "gw", oidcClientSecret: "very-secret-value", defaultRole: "billing" });
    expect(view.settings).toMatchObject({ oidcIssuer: "https://login.acme.test", oidcClientSecret: "set", defaultRole: "billing" });
    expect(JSON.stringify(view)).not.toContain("very-secret-value");
    expect(view.endpoints).toEqual({
      oidcRedirectUri: "https://gw.example/api/auth/sso/oidc/callback",
      samlEntityId: "https://gw.example/api/auth/sso/saml/acct_team/metadata",
      samlAcsUrl: "https://gw.example/api/auth/sso/saml/acct_team/acs",
      samlMetadataUrl: "https://gw.example/api/auth/sso/saml/acct_team/metadata",
      scimBaseUrl: "https://gw.example/scim/v2",
    });
    const [row] = await t.db.select().from(orgIdentity).where(eq(orgIdentity.accountId, "acct_team"));
    expect(row!.oidcClientSecretEncrypted).toMatch(/^v1\./);
    expect(row!.oidcClientSecretEncrypted).not.toContain("very-secret-value");
    const audits = await t.db.select().from(auditLog).where(eq(auditLog.action, "org.identity_update"));
    expect(JSON.stringify(audits)).not.toContain("very-secret-value");
    expect(audits.at(-1)!.details).toMatchObject({ before: { oidcClientSecret: "none", defaultRole: "member" }, after: { oidcClientSecret: "set", defaultRole: "billing" } });
    // An empty secret keeps the stored one.
    await identity.updateIdentity(t.db, owner("acct_team"), { oidcClientSecret: "", oidcClientId: "gw2" });
    const [again] = await t.db.select().from(orgIdentity).where(eq(orgIdentity.accountId, "acct_team"));
    expect(again!.oidcClientSecretEncrypted).toBe(row!.oidcClientSecretEncrypted);
  });

  it("refuses SSO required before a verified domain exists, then allows it", async () => {
    await expect(identity.updateIdentity(t.db, owner("acct_team"), { ssoRequired: true })).rejects.toMatchObject({ code: "conflict" });
    await identity.addDomain(t.db, owner("acct_team", "admin"), "Acme.test");
    const view = await identity.updateIdentity(t.db, owner("acct_team"), { ssoRequired: true });
    expect(view.settings.ssoRequired).toBe(true);
    expect(view.domains).toEqual(["acme.test"]);
  });

  it("keeps a domain to one organisation and refuses what is not a domain", async () => {
    await expect(identity.addDomain(t.db, owner("acct_other", "admin"), "acme.test")).rejects.toMatchObject({ code: "conflict" });
    await expect(identity.addDomain(t.db, owner("acct_other", "admin"), "not a domain")).rejects.toMatchObject({ code: "invalid_request" });
    await expect(identity.removeDomain(t.db, owner("acct_other", "admin"), "acme.test")).rejects.toMatchObject({ code: "not_found" });
  });

  it("has no SSO or SCIM for a personal organisation", async () => {
    await expect(identity.identityView(t.db, owner("acct_personal"))).rejects.toMatchObject({ code: "conflict" });
    await expect(identity.newScimToken(t.db, owner("acct_personal"))).rejects.toMatchObject({ code: "conflict" });
  });

  it("makes SCIM tokens shown once and stored hashed, and revokes them", async () => {
    const { token } = await identity.newScimToken(t.db, owner("acct_team"));
    expect(token.secret).toMatch(/^scim_[A-Za-z0-9]{43}$/);
    const view = await identity.identityView(t.db, owner("acct_team"));
    expect(JSON.stringify(view)).not.toContain(token.secret);
    expect(view.scimTokens).toEqual([expect.objectContaining({ id: token.id, prefix: token.secret.slice(0, 9), revokedAt: null })]);
    const { scimTokenOrg } = await import("../lib/scim/tokens");
    expect(await scimTokenOrg(t.db, token.secret)).toBe("acct_team");
    await identity.dropScimToken(t.db, owner("acct_team"), token.id);
    expect(await scimTokenOrg(t.db, token.secret)).toBeNull();
    await expect(identity.dropScimToken(t.db, owner("acct_other"), token.id)).rejects.toMatchObject({ code: "not_found" });
  });
});
