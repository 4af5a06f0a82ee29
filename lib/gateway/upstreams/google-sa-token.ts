/**
 * Google OAuth 2.0 access tokens for `vertex` upstreams from a service account's key file: an
 * RS256-signed JWT assertion (RFC 7523) posted to the key's `token_uri` (or the upstream's
 * `tokenUrl`), scope cloud-platform. Cached per upstream and key until a minute before expiry.
 */
import { createHash, createSign } from "node:crypto";
import { errors, type Outcome } from "../errors";
import type { UpstreamInfo } from "../model-route";
import { cachedToken, postForToken, type FetchedToken } from "./token-cache";
import { externalAccountToken, GOOGLE_CLOUD_SCOPE, isExternalAccount, metadataToken, type ExternalAccount } from "./google-workload-token";

export { GOOGLE_CLOUD_SCOPE };
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";

interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

function keyOf(u: UpstreamInfo): ServiceAccountKey | null {
  try {
    const k = JSON.parse(u.credentials?.serviceAccount ?? "") as Partial<ServiceAccountKey>;
    return typeof k.client_email === "string" && typeof k.private_key === "string" ? (k as ServiceAccountKey) : null;
  } catch {
    return null;
  }
}

function externalAccountOf(u: UpstreamInfo): ExternalAccount | null {
  try {
    const v = JSON.parse(u.credentials?.serviceAccount ?? "") as unknown;
    return isExternalAccount(v) ? v : null;
  } catch {
    return null;
  }
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/** The signed assertion: iss = the service account, aud = the token endpoint, one hour. */
export function serviceAccountAssertion(key: ServiceAccountKey, aud: string, nowS = Math.floor(Date.now() / 1000)): string {
  const head = b64url({ alg: "RS256", typ: "JWT", ...(key.private_key_id ? { kid: key.private_key_id } : {}) });
  const claims = b64url({ iss: key.client_email, scope: GOOGLE_CLOUD_SCOPE, aud, iat: nowS, exp: nowS + 3600 });
  const signature = createSign("RSA-SHA256").update(`${head}.${claims}`).sign(key.private_key).toString("base64url");
  return `${head}.${claims}.${signature}`;
}

/**
 * The upstream's Google token: from its service-account key; or with an external-account file
 * (workload identity federation) or no file at all, google-workload-token.ts.
 */
export async function googleToken(u: UpstreamInfo, signal?: AbortSignal, now = Date.now()): Promise<Outcome<string>> {
  if (!u.credentials?.serviceAccount) return metadataToken(u, signal, now);
  const external = externalAccountOf(u);
  if (external) return externalAccountToken(u, external, signal, now);
  const key = keyOf(u);
  if (!key) return { ok: false, error: errors.upstream("The upstream's service account key is missing or not a key file."), retryable: false, failover: true };
  const url = u.settings?.tokenUrl ?? key.token_uri ?? DEFAULT_TOKEN_URI;
  const cacheKey = createHash("sha256").update(`google\0${u.id}\0${url}\0${key.client_email}\0${key.private_key}`).digest("base64url");
  const fetch = (): Promise<Outcome<FetchedToken>> =>
    postForToken(url, { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: serviceAccountAssertion(key, url) }, "a Google service-account", key.private_key, signal);
  return cachedToken(cacheKey, fetch, now);
}
