/**
 * An organisation's identity settings (org_identity) and its verified email domains
 * (sso_domains). A domain maps to one organisation; only a gateway admin adds one (decision 0062).
 */
import { and, eq, isNotNull, or } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "../../db/client";
import { accounts, orgIdentity, ssoDomains, type OrgRole } from "../../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";

export type OrgIdentityRow = typeof orgIdentity.$inferSelect;

/** Roles sign-in or provisioning may give: never owner (ownership stays a person's decision). */
export const PROVISIONED_ROLES = ["admin", "member", "billing"] as const satisfies readonly OrgRole[];

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function normalizeDomain(raw: string): string | null {
  const d = raw.trim().toLowerCase().replace(/^@/, "");
  return DOMAIN.test(d) ? d : null;
}

export async function orgIdentityOf(db: DbOrTx, accountId: string): Promise<OrgIdentityRow | null> {
  const [row] = await db.select().from(orgIdentity).where(eq(orgIdentity.accountId, accountId));
  return row ?? null;
}

export async function domainsOf(db: DbOrTx, accountId: string): Promise<string[]> {
  const rows = await db.select({ d: ssoDomains.domain }).from(ssoDomains).where(eq(ssoDomains.accountId, accountId)).orderBy(ssoDomains.domain);
  return rows.map((r) => r.d);
}

/** The organisation whose verified domain the email is in, with its settings (defaults when unset). */
export async function orgForEmail(db: DbOrTx, email: string): Promise<{ accountId: string; identity: OrgIdentityRow | null } | null> {
  const [row] = await db
    .select({ accountId: ssoDomains.accountId, identity: orgIdentity })
    .from(ssoDomains)
    .leftJoin(orgIdentity, eq(orgIdentity.accountId, ssoDomains.accountId))
    .innerJoin(accounts, and(eq(accounts.id, ssoDomains.accountId), eq(accounts.disabled, false)))
    .where(eq(ssoDomains.domain, emailDomain(email)));
  return row ?? null;
}

/** The decrypted OIDC client of an organisation, or null when it has none. */
export function orgOidcClient(row: OrgIdentityRow | null): { issuer: string; clientId: string; clientSecret: string } | null {
  if (!row?.oidcIssuer || !row.oidcClientId || !row.oidcClientSecretEncrypted) return null;
  return { issuer: row.oidcIssuer, clientId: row.oidcClientId, clientSecret: decryptSecret(row.oidcClientSecretEncrypted) };
}

export function orgSamlIdp(row: OrgIdentityRow | null): { entryPoint: string; idpIssuer: string | null; idpCert: string } | null {
  if (!row?.samlEntryPoint || !row.samlIdpCert) return null;
  return { entryPoint: row.samlEntryPoint, idpIssuer: row.samlIdpIssuer, idpCert: row.samlIdpCert };
}

const httpsUrl = z
  .string()
  .trim()
  .max(2000)
  .url("Enter a URL.")
  .refine((u) => /^https:\/\//.test(u) || /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/|$)/.test(u), "Use an https:// URL.");

/** The console's form (Organisation → Identity). An empty client secret keeps the stored one. */
export const identitySettingsSchema = z.object({
  defaultRole: z.enum(PROVISIONED_ROLES).optional(),
  ssoRequired: z.boolean().optional(),
  oidcIssuer: z.union([z.literal(""), httpsUrl]).optional(),
  oidcClientId: z.string().trim().max(500).optional(),
  oidcClientSecret: z.string().max(2000).optional(),
  samlEntryPoint: z.union([z.literal(""), httpsUrl]).optional(),
  samlIdpIssuer: z.string().trim().max(1000).optional(),
  samlIdpCert: z
    .string()
    .trim()
    .max(20_000)
    .refine((c) => c === "" || /^(-----BEGIN CERTIFICATE-----)?[\sA-Za-z0-9+/=]+(-----END CERTIFICATE-----)?$/.test(c), "Paste the IdP's signing certificate (PEM).")
    .optional(),
  groupRoles: z.record(z.string().trim().min(1).max(256), z.enum(PROVISIONED_ROLES)).optional(),
});
export type IdentitySettingsInput = z.infer<typeof identitySettingsSchema>;

/** The row's new values from the form (the secret encrypted; "" clears a field). */
export function identityValues(input: IdentitySettingsInput): Partial<typeof orgIdentity.$inferInsert> {
  const out: Partial<typeof orgIdentity.$inferInsert> = {};
  const text = (v: string | undefined) => (v === undefined ? undefined : v.trim() || null);
  if (input.defaultRole !== undefined) out.defaultRole = input.defaultRole;
  if (input.ssoRequired !== undefined) out.ssoRequired = input.ssoRequired;
  if (input.oidcIssuer !== undefined) out.oidcIssuer = text(input.oidcIssuer);
  if (input.oidcClientId !== undefined) out.oidcClientId = text(input.oidcClientId);
  if (input.oidcClientSecret) out.oidcClientSecretEncrypted = encryptSecret(input.oidcClientSecret);
  if (input.samlEntryPoint !== undefined) out.samlEntryPoint = text(input.samlEntryPoint);
  if (input.samlIdpIssuer !== undefined) out.samlIdpIssuer = text(input.samlIdpIssuer);
  if (input.samlIdpCert !== undefined) out.samlIdpCert = text(input.samlIdpCert);
  if (input.groupRoles !== undefined) out.groupRoles = input.groupRoles;
  return out;
}

/** Whether any organisation has an identity provider set up (the sign-in page shows "Sign in with SSO" then). */
export async function anyOrgIdp(db: DbOrTx): Promise<boolean> {
  const [row] = await db
    .select({ id: orgIdentity.accountId })
    .from(orgIdentity)
    .where(or(isNotNull(orgIdentity.oidcIssuer), isNotNull(orgIdentity.samlEntryPoint)))
    .limit(1);
  return !!row;
}
