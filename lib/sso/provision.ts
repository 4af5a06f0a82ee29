/**
 * The one rule for a person an identity provider vouches for (OIDC or SAML, instance-wide or an
 * organisation's): find or create the user, link the identity, and make them a member of the
 * organisation their email domain maps to, with its default role.
 *
 * An organisation's own IdP speaks only for its verified domains: anything else it asserts is
 * refused, or any organisation could configure an IdP that signs in as someone else's user.
 */
import { and, eq } from "drizzle-orm";
import type { DB } from "../../db/client";
import { memberships, scimUsers } from "../../db/schema";
import { recordAudit } from "../audit/record";
import { normalizeEmail, userForOAuth, type UserRow } from "../auth/users";
import { env } from "../env";
import { orgForEmail } from "./settings";
import type { Result } from "../result";

export interface IdpIdentity {
  /** "oidc" | "saml" */
  protocol: "oidc" | "saml";
  /** The organisation whose IdP signed this person in; null = the instance-wide OIDC provider. */
  idpAccountId: string | null;
  /** The IdP's stable subject (OIDC `sub`, SAML NameID). */
  subject: string;
  email: string;
  /** The IdP said it verified the address (OIDC `email_verified`; SAML: the IdP is the authority). */
  emailVerified: boolean;
  name?: string | null;
}

export type SsoRefusal = "email_unverified" | "domain_not_verified" | "signup_closed" | "account_disabled" | "deprovisioned";

/** The user signed in, and the organisation the IdP's domain maps to (null: none). */
export type SsoResult = Result<{ user: UserRow; accountId: string | null }, SsoRefusal>;

/** The provider name in auth_accounts: the subject is unique per IdP, not across them. */
export function providerName(id: Pick<IdpIdentity, "protocol" | "idpAccountId">): string {
  return `${id.protocol}:${id.idpAccountId ?? "instance"}`;
}

export async function signInFromIdp(db: DB, id: IdpIdentity): Promise<SsoResult> {
  if (!id.emailVerified) return { ok: false, error: "email_unverified" };
  const email = normalizeEmail(id.email);
  const mapped = await orgForEmail(db, email);
  if (id.idpAccountId && mapped?.accountId !== id.idpAccountId) return { ok: false, error: "domain_not_verified" };
  const user = await userForOAuth(db, {
    provider: providerName(id),
    providerAccountId: id.subject,
    type: id.protocol,
    email,
    name: id.name ?? null,
    // A verified company domain may create its people; otherwise the instance's sign-up rule holds.
    allowCreate: !!mapped || env().SIGNUP === "open",
  });
  if (user === "signup_closed") return { ok: false, error: "signup_closed" };
  if (!user) return { ok: false, error: "account_disabled" };
  if (!mapped) return { ok: true, value: { user, accountId: null } };
  // Deactivated by the organisation's SCIM client: signing in must not bring the membership back.
  const [scim] = await db
    .select({ active: scimUsers.active })
    .from(scimUsers)
    .where(and(eq(scimUsers.accountId, mapped.accountId), eq(scimUsers.userId, user.id)));
  if (scim && !scim.active) return id.idpAccountId ? { ok: false, error: "deprovisioned" } : { ok: true, value: { user, accountId: null } };
  const role = mapped.identity?.defaultRole ?? "member";
  const added = await db.insert(memberships).values({ accountId: mapped.accountId, userId: user.id, role }).onConflictDoNothing().returning({ role: memberships.role });
  if (added.length) {
    await recordAudit(db, { actorUserId: user.id, actor: email, action: "org.member_join_sso", targetType: "user", targetId: user.id, details: { accountId: mapped.accountId, role, via: providerName(id) } });
  }
  return { ok: true, value: { user, accountId: mapped.accountId } };
}

/** The sign-in page's error code for each refusal (components/auth/sign-in-form.tsx words them). */
const ERROR_CODES: Record<SsoRefusal, string> = {
  email_unverified: "SsoEmailUnverified",
  domain_not_verified: "SsoWrongDomain",
  signup_closed: "SignupClosed",
  account_disabled: "AccountDisabled",
  deprovisioned: "AccountDisabled",
};

export function ssoErrorCode(reason: SsoRefusal): string {
  return ERROR_CODES[reason];
}
