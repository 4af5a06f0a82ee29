/** "Sign in with SSO": the email's verified domain picks its organisation's IdP (OIDC first, then SAML), else the instance-wide OIDC provider. */
import type { DB } from "../../db/client";
import { normalizeEmail } from "../auth/users";
import { signInError } from "./browser";
import { instanceOidc, startOidc } from "./oidc";
import { startSaml } from "./saml";
import { orgForEmail, orgOidcClient, orgSamlIdp } from "./settings";

export async function startSsoForEmail(db: DB, rawEmail: string, callbackUrl: string | null): Promise<Response> {
  const email = normalizeEmail(rawEmail);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) return signInError("SsoNotConfigured");
  const mapped = await orgForEmail(db, email);
  if (mapped && orgOidcClient(mapped.identity)) return startOidc(db, mapped.accountId, callbackUrl);
  if (mapped && orgSamlIdp(mapped.identity)) return startSaml(db, mapped.accountId, callbackUrl);
  if (instanceOidc()) return startOidc(db, null, callbackUrl);
  return signInError("SsoNotConfigured");
}
