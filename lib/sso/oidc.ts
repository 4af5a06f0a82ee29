/**
 * OIDC sign-in (authorization code with PKCE S256, state and nonce), with the instance-wide
 * provider (OIDC_* env) or an organisation's own (Organisation → Identity). One callback URL
 * serves both: the sealed state cookie says which provider the sign-in started with.
 * openid-client checks the ID token (signature against the issuer's JWKS, iss, aud, exp, nonce)
 * and the state; the email must be verified by the provider (`email_verified: true`).
 */
import { Issuer, generators, type BaseClient } from "openid-client";
import type { DB } from "../../db/client";
import { safeCallback } from "../auth/callback";
import { env } from "../env";
import { logger } from "../logger";
import { processSingleton } from "../process-singleton";
import { clearStateCookie, readStateCookie, redirectTo, sessionCookies, signInError, stateCookie } from "./browser";
import { signInFromIdp, ssoErrorCode } from "./provision";
import { orgIdentityOf, orgOidcClient } from "./settings";

export const OIDC_CALLBACK_PATH = "/api/auth/sso/oidc/callback";

interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

interface OidcState {
  org: string | null;
  state: string;
  nonce: string;
  verifier: string;
  callbackUrl: string;
}

/** The instance-wide provider when OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set. */
export function instanceOidc(): (OidcConfig & { name: string }) | null {
  const e = env();
  if (!e.OIDC_ISSUER || !e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET) return null;
  return { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET, name: e.OIDC_NAME ?? "Single sign-on" };
}

async function configFor(db: DB, org: string | null): Promise<OidcConfig | null> {
  return org ? orgOidcClient(await orgIdentityOf(db, org)) : instanceOidc();
}

// Discovery documents change rarely; an hour keeps a rotated JWKS URL from sticking for long
// (openid-client refetches the JWKS itself when a token names an unknown key).
const DISCOVERY_TTL_MS = 3_600_000;
const issuers = processSingleton("sso.oidcIssuers", () => new Map<string, { issuer: Issuer<BaseClient>; at: number }>());

async function clientFor(cfg: OidcConfig): Promise<BaseClient> {
  const cache = issuers();
  let hit = cache.get(cfg.issuer);
  if (!hit || Date.now() - hit.at > DISCOVERY_TTL_MS) {
    hit = { issuer: await Issuer.discover(cfg.issuer), at: Date.now() };
    if (cache.size > 1000) cache.clear();
    cache.set(cfg.issuer, hit);
  }
  return new hit.issuer.Client({
    client_id: cfg.clientId,
    client_secret: cfg.clientSecret,
    redirect_uris: [`${env().publicBaseUrl}${OIDC_CALLBACK_PATH}`],
    response_types: ["code"],
    token_endpoint_auth_method: "client_secret_basic",
  });
}

/** Redirects the browser to the provider (`org` null: the instance-wide one). */
export async function startOidc(db: DB, org: string | null, callbackUrl: string | null): Promise<Response> {
  const cfg = await configFor(db, org);
  if (!cfg) return signInError("SsoNotConfigured");
  let client: BaseClient;
  try {
    client = await clientFor(cfg);
  } catch (err) {
    logger().warn({ err: (err as Error).message, org }, "OIDC discovery failed");
    return signInError("SsoUnavailable");
  }
  const s: OidcState = {
    org,
    state: generators.state(),
    nonce: generators.nonce(),
    verifier: generators.codeVerifier(),
    callbackUrl: safeCallback(callbackUrl, new URL(env().publicBaseUrl).origin),
  };
  const url = client.authorizationUrl({
    scope: "openid email profile",
    state: s.state,
    nonce: s.nonce,
    code_challenge: generators.codeChallenge(s.verifier),
    code_challenge_method: "S256",
  });
  return redirectTo(url, [stateCookie(s)]);
}

/** The provider's redirect back: the code is exchanged, the identity checked and signed in. */
export async function finishOidc(db: DB, url: URL, cookieHeader: string | null): Promise<Response> {
  const s = readStateCookie<OidcState>(cookieHeader);
  if (!s) return signInError("SsoExpired");
  const cfg = await configFor(db, s.org);
  if (!cfg) return signInError("SsoNotConfigured");
  let claims: { sub: string; email?: unknown; email_verified?: unknown; name?: unknown };
  try {
    const client = await clientFor(cfg);
    const params = client.callbackParams(url.toString());
    if (params.error) return signInError("SsoRefused");
    const tokens = await client.callback(`${env().publicBaseUrl}${OIDC_CALLBACK_PATH}`, params, { state: s.state, nonce: s.nonce, code_verifier: s.verifier });
    claims = tokens.claims();
    // Many providers put email claims only in userinfo; its `sub` must be the ID token's.
    if (claims.email === undefined && tokens.access_token) {
      const info = await client.userinfo(tokens.access_token);
      if (info.sub !== claims.sub) return signInError("SsoRefused");
      claims = { ...info, sub: claims.sub };
    }
  } catch (err) {
    logger().warn({ err: (err as Error).message, org: s.org }, "OIDC sign-in refused");
    return signInError("SsoRefused");
  }
  if (typeof claims.email !== "string") return signInError("SsoNoEmail");
  const r = await signInFromIdp(db, {
    protocol: "oidc",
    idpAccountId: s.org,
    subject: claims.sub,
    email: claims.email,
    emailVerified: claims.email_verified === true,
    name: typeof claims.name === "string" ? claims.name : null,
  });
  if (!r.ok) return signInError(ssoErrorCode(r.error));
  return redirectTo(`${env().publicBaseUrl}${s.callbackUrl}`, [...(await sessionCookies(r.value.user, r.value.accountId)), clearStateCookie()]);
}
