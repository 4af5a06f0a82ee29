/**
 * SAML 2.0 sign-in with an organisation's identity provider (SP-initiated, HTTP-Redirect
 * request, HTTP-POST response). node-saml verifies the assertion's signature against the IdP's
 * certificate (signed assertions are required), its audience (our entity id), its time window
 * (NotBefore / NotOnOrAfter, one minute of skew) and InResponseTo (the request id kept in the
 * sealed state cookie: an unsolicited, IdP-initiated response is refused, which also stops a
 * login-CSRF with someone else's assertion). Here: the assertion's Issuer (node-saml checks it
 * on logout messages only), the Recipient must be our ACS URL, and each assertion id is
 * accepted once (saml_replays) until it expires.
 */
import { SAML, ValidateInResponseTo, type CacheProvider } from "@node-saml/node-saml";
import { lt } from "drizzle-orm";
import type { DB } from "../../db/client";
import { samlReplays } from "../../db/schema";
import { safeCallback } from "../auth/callback";
import { env } from "../env";
import { logger } from "../logger";
import { clearStateCookie, readStateCookie, redirectTo, sessionCookies, signInError, stateCookie } from "./browser";
import { signInFromIdp, ssoErrorCode } from "./provision";
import { orgIdentityOf, orgSamlIdp } from "./settings";

interface SamlState {
  org: string;
  requestId: string;
  callbackUrl: string;
}

/** Our entity id and ACS URL for an organisation (what its IdP is configured with). */
export function samlSp(org: string): { entityId: string; acsUrl: string; metadataUrl: string } {
  const base = `${env().publicBaseUrl}/api/auth/sso/saml/${encodeURIComponent(org)}`;
  return { entityId: `${base}/metadata`, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata` };
}

/** A cache that knows only the one request id this browser started (from its state cookie). */
function oneRequestCache(known: string | null, saved: { id?: string } = {}): CacheProvider {
  return {
    async saveAsync(key, value) {
      saved.id = key;
      return { value, createdAt: Date.now() };
    },
    async getAsync(key) {
      return known !== null && key === known ? new Date().toISOString() : null;
    },
    async removeAsync(key) {
      return key;
    },
  };
}

function samlFor(org: string, idp: NonNullable<ReturnType<typeof orgSamlIdp>>, cache: CacheProvider): SAML {
  const sp = samlSp(org);
  return new SAML({
    entryPoint: idp.entryPoint,
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    audience: sp.entityId,
    idpCert: idp.idpCert,
    idpIssuer: idp.idpIssuer ?? undefined,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: 60_000,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: 600_000,
    cacheProvider: cache,
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    disableRequestedAuthnContext: true,
  });
}

export async function startSaml(db: DB, org: string, callbackUrl: string | null): Promise<Response> {
  const idp = orgSamlIdp(await orgIdentityOf(db, org));
  if (!idp) return signInError("SsoNotConfigured");
  const saved: { id?: string } = {};
  const url = await samlFor(org, idp, oneRequestCache(null, saved)).getAuthorizeUrlAsync("", undefined, {});
  const s: SamlState = { org, requestId: saved.id!, callbackUrl: safeCallback(callbackUrl, new URL(env().publicBaseUrl).origin) };
  return redirectTo(url, [stateCookie(s, true)]);
}

type Node = { $?: Record<string, string> } & Record<string, unknown>;
const kids = (n: Node | undefined, name: string): Node[] => (Array.isArray(n?.[name]) ? (n![name] as Node[]) : []);

/** The validated assertion's id, its SubjectConfirmationData Recipients and latest NotOnOrAfter (node-saml's parse, prefixes stripped). */
function assertionFacts(parsed: Record<string, unknown> | undefined): { id: string | null; recipients: string[]; notOnOrAfter: number | null } {
  const a = parsed?.Assertion as Node | undefined;
  const confirm = kids(a, "Subject").flatMap((s) => kids(s, "SubjectConfirmation")).flatMap((c) => kids(c, "SubjectConfirmationData"));
  const conditions = kids(a, "Conditions");
  const times = [...confirm, ...conditions].map((e) => Date.parse(e.$?.NotOnOrAfter ?? "")).filter((t) => !Number.isNaN(t));
  return {
    id: a?.$?.ID ?? null,
    recipients: confirm.map((e) => e.$?.Recipient ?? ""),
    notOnOrAfter: times.length ? Math.max(...times) : null,
  };
}

const EMAIL_ATTRIBUTES = ["email", "mail", "emailAddress", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress", "urn:oid:0.9.2342.19200300.100.1.3"];

export async function finishSaml(db: DB, org: string, form: FormData, cookieHeader: string | null): Promise<Response> {
  const s = readStateCookie<SamlState>(cookieHeader);
  if (!s || s.org !== org) return signInError("SsoExpired");
  const idp = orgSamlIdp(await orgIdentityOf(db, org));
  if (!idp) return signInError("SsoNotConfigured");
  const response = form.get("SAMLResponse");
  if (typeof response !== "string" || response.length > 1_000_000) return signInError("SsoRefused");
  let email: string | null;
  let subject: string;
  try {
    const { profile } = await samlFor(org, idp, oneRequestCache(s.requestId)).validatePostResponseAsync({ SAMLResponse: response });
    if (!profile) return signInError("SsoRefused");
    // node-saml checks idpIssuer on logout messages only: the assertion's issuer is checked here.
    if (idp.idpIssuer && profile.issuer !== idp.idpIssuer) throw new Error(`unknown issuer ${profile.issuer}`);
    const facts = assertionFacts(profile.getAssertion?.());
    const acs = samlSp(org).acsUrl;
    if (!facts.id || !facts.recipients.length || facts.recipients.some((r) => r !== acs)) throw new Error("the assertion's Recipient is not our ACS URL");
    if (!(await firstUse(db, `${profile.issuer}|${facts.id}`, facts.notOnOrAfter))) throw new Error("assertion replayed");
    const attr = EMAIL_ATTRIBUTES.map((a) => profile[a]).find((v) => typeof v === "string") as string | undefined;
    email = attr ?? (/^[^\s@]+@[^\s@]+$/.test(profile.nameID) ? profile.nameID : null);
    subject = profile.nameID;
  } catch (err) {
    logger().warn({ err: (err as Error).message, org }, "SAML sign-in refused");
    return signInError("SsoRefused");
  }
  if (!email) return signInError("SsoNoEmail");
  // The IdP is the authority for the addresses of the organisation's verified domains.
  const r = await signInFromIdp(db, { protocol: "saml", idpAccountId: org, subject, email, emailVerified: true });
  if (!r.ok) return signInError(ssoErrorCode(r.error));
  return redirectTo(`${env().publicBaseUrl}${s.callbackUrl}`, [...(await sessionCookies(r.value.user, r.value.accountId)), clearStateCookie()]);
}

/** Records an assertion id; false when it was already used. Expired ids are swept as we go. */
async function firstUse(db: DB, id: string, notOnOrAfter: number | null): Promise<boolean> {
  const now = Date.now();
  await db.delete(samlReplays).where(lt(samlReplays.expiresAt, new Date(now)));
  // Without a NotOnOrAfter node-saml's maximum assertion age bounds it; keep a day to be safe.
  const expiresAt = new Date(Math.max(notOnOrAfter ?? 0, now + 86_400_000));
  const rows = await db.insert(samlReplays).values({ assertionId: id.slice(0, 1000), expiresAt }).onConflictDoNothing().returning({ id: samlReplays.assertionId });
  return rows.length === 1;
}

/** Our SP metadata for the organisation's IdP administrator. */
export async function samlMetadata(org: string): Promise<string> {
  const sp = samlSp(org);
  return new SAML({ issuer: sp.entityId, callbackUrl: sp.acsUrl, idpCert: "unused", wantAssertionsSigned: true }).generateServiceProviderMetadata(null, null);
}
