/**
 * Microsoft Entra ID access tokens for `azure-openai` upstreams, from an app registration's
 * client credentials (OAuth 2.0 client_credentials grant to `tokenUrl`, default Microsoft's
 * endpoint for the tenant). One token per upstream and credentials, cached in the process until
 * a minute before it expires; concurrent requests share one fetch. The secret and the token
 * never reach a log or an error message.
 */
import { createHash } from "node:crypto";
import { errors, type Outcome } from "../errors";
import type { UpstreamInfo } from "../model-route";
import { cachedToken, postForToken, type FetchedToken } from "./token-cache";

/** The scope of Azure OpenAI (Cognitive Services) data-plane calls. */
export const AZURE_OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default";

export function entraTokenUrl(u: UpstreamInfo): string | null {
  const s = u.settings ?? {};
  return s.tokenUrl ?? (s.tenantId ? `https://login.microsoftonline.com/${encodeURIComponent(s.tenantId)}/oauth2/v2.0/token` : null);
}

/** Whether the upstream authenticates with Entra ID (client credentials) rather than an API key. */
export function usesEntra(u: UpstreamInfo): boolean {
  return !u.apiKey && !!u.settings?.clientId && !!u.credentials?.clientSecret;
}

export async function entraToken(u: UpstreamInfo, signal?: AbortSignal, now = Date.now()): Promise<Outcome<string>> {
  const url = entraTokenUrl(u);
  const clientId = u.settings?.clientId;
  const secret = u.credentials?.clientSecret;
  if (!url || !clientId || !secret) return { ok: false, error: errors.upstream("The upstream's Entra ID credentials are incomplete."), retryable: false, failover: true };
  // A changed secret or endpoint is another entry (the old token is simply left to expire).
  const key = createHash("sha256").update(`entra\0${u.id}\0${url}\0${clientId}\0${secret}`).digest("base64url");
  return cachedToken(key, () => fetchToken(url, clientId, secret, signal), now);
}

function fetchToken(url: string, clientId: string, secret: string, signal?: AbortSignal): Promise<Outcome<FetchedToken>> {
  return postForToken(url, { grant_type: "client_credentials", client_id: clientId, client_secret: secret, scope: AZURE_OPENAI_SCOPE }, "an Entra ID", secret, signal);
}
