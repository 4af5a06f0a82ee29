/**
 * Organisation → Identity in the console: the organisation's OIDC client and SAML IdP, its
 * default role, group → role mapping, "SSO required", its SCIM tokens, and (gateway admins
 * only, decision 0062) its verified email domains. Every change is audited with before/after;
 * the client secret shows only as set or not.
 */
import { and, eq } from "drizzle-orm";
import type { DB } from "../../db/client";
import { accounts, orgIdentity, ssoDomains } from "../../db/schema";
import { AppError } from "../app-error";
import { auditDiff, recordAudit } from "../audit/record";
import type { SessionUser } from "../auth/session";
import { env } from "../env";
import { createScimToken, listScimTokens, revokeScimToken } from "../scim/tokens";
import { SCIM_PREFIX } from "../scim/http";
import { instanceOidc, OIDC_CALLBACK_PATH } from "../sso/oidc";
import { samlSp } from "../sso/saml";
import { domainsOf, identityValues, normalizeDomain, orgIdentityOf, type IdentitySettingsInput, type OrgIdentityRow } from "../sso/settings";

async function teamOrg(db: DB, accountId: string): Promise<void> {
  const [a] = await db.select({ personal: accounts.personal }).from(accounts).where(eq(accounts.id, accountId));
  if (!a) throw new AppError("not_found", "No such organisation.");
  if (a.personal) throw new AppError("conflict", "Single sign-on and SCIM are for team organisations: create one first.");
}

/** What the audit may say about the settings: the secret as set/none. */
function auditable(row: Partial<OrgIdentityRow> | null) {
  return {
    defaultRole: row?.defaultRole ?? "member",
    ssoRequired: row?.ssoRequired ?? false,
    oidcIssuer: row?.oidcIssuer ?? null,
    oidcClientId: row?.oidcClientId ?? null,
    oidcClientSecret: row?.oidcClientSecretEncrypted ? "set" : "none",
    samlEntryPoint: row?.samlEntryPoint ?? null,
    samlIdpIssuer: row?.samlIdpIssuer ?? null,
    samlIdpCert: row?.samlIdpCert ? "set" : "none",
    groupRoles: row?.groupRoles ?? {},
  };
}

export async function identityView(db: DB, user: SessionUser) {
  await teamOrg(db, user.accountId);
  const row = await orgIdentityOf(db, user.accountId);
  const sp = samlSp(user.accountId);
  const base = env().publicBaseUrl;
  return {
    settings: { ...auditable(row), samlIdpCert: row?.samlIdpCert ?? "" },
    domains: await domainsOf(db, user.accountId),
    canEditDomains: user.role === "admin",
    scimTokens: await listScimTokens(db, user.accountId),
    endpoints: { oidcRedirectUri: `${base}${OIDC_CALLBACK_PATH}`, samlEntityId: sp.entityId, samlAcsUrl: sp.acsUrl, samlMetadataUrl: sp.metadataUrl, scimBaseUrl: `${base}${SCIM_PREFIX}` },
    instanceOidc: instanceOidc()?.name ?? null,
  };
}

export async function updateIdentity(db: DB, user: SessionUser, input: IdentitySettingsInput) {
  await teamOrg(db, user.accountId);
  const before = await orgIdentityOf(db, user.accountId);
  const set = identityValues(input);
  if (!Object.keys(set).length) throw new AppError("invalid_request", "Nothing to change.");
  const after = { ...before, ...set } as OrgIdentityRow;
  const hasIdp = (after.oidcIssuer && after.oidcClientId && after.oidcClientSecretEncrypted) || (after.samlEntryPoint && after.samlIdpCert) || instanceOidc();
  // Requiring SSO with no way to sign in through it would lock every member out.
  if (after.ssoRequired && (!hasIdp || !(await domainsOf(db, user.accountId)).length)) {
    throw new AppError("conflict", "Set up an identity provider and a verified domain before requiring single sign-on.", { field: "ssoRequired" });
  }
  await db
    .insert(orgIdentity)
    .values({ accountId: user.accountId, ...set, updatedAt: new Date() })
    .onConflictDoUpdate({ target: orgIdentity.accountId, set: { ...set, updatedAt: new Date() } });
  await recordAudit(db, { actorUserId: user.id, actor: user.email, action: "org.identity_update", targetType: "account", targetId: user.accountId, details: auditDiff(auditable(before), auditable(after)) });
  return identityView(db, user);
}

/** Gateway admins only: a domain lets the organisation's IdP and SCIM speak for its addresses. */
export async function addDomain(db: DB, user: SessionUser, raw: string) {
  await teamOrg(db, user.accountId);
  const domain = normalizeDomain(raw);
  if (!domain) throw new AppError("invalid_request", "Enter a domain such as example.com.", { field: "domain" });
  const [taken] = await db.select({ accountId: ssoDomains.accountId }).from(ssoDomains).where(eq(ssoDomains.domain, domain));
  if (taken && taken.accountId !== user.accountId) throw new AppError("conflict", `${domain} belongs to another organisation.`, { field: "domain" });
  await db.insert(ssoDomains).values({ domain, accountId: user.accountId, addedByUserId: user.id }).onConflictDoNothing();
  await recordAudit(db, { actorUserId: user.id, actor: user.email, action: "sso.domain_add", targetType: "account", targetId: user.accountId, details: { domain } });
  return { domains: await domainsOf(db, user.accountId) };
}

export async function removeDomain(db: DB, user: SessionUser, raw: string) {
  const domain = normalizeDomain(raw) ?? "";
  const gone = await db.delete(ssoDomains).where(and(eq(ssoDomains.domain, domain), eq(ssoDomains.accountId, user.accountId))).returning();
  if (!gone.length) throw new AppError("not_found", "No such domain in this organisation.");
  await recordAudit(db, { actorUserId: user.id, actor: user.email, action: "sso.domain_remove", targetType: "account", targetId: user.accountId, details: { domain } });
  return { domains: await domainsOf(db, user.accountId) };
}

export async function newScimToken(db: DB, user: SessionUser) {
  const t = await createScimToken(db, user.accountId, { userId: user.id, actor: user.email });
  return { token: { id: t.id, prefix: t.prefix, secret: t.token } };
}

export async function dropScimToken(db: DB, user: SessionUser, id: string) {
  if (!(await revokeScimToken(db, user.accountId, id, { userId: user.id, actor: user.email }))) throw new AppError("not_found", "No such SCIM token.");
  return { id, revoked: true };
}
