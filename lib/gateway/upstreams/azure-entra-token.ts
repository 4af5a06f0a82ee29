/**
 * Microsoft Entra ID access tokens for `azure-openai` upstreams, from an app registration's
 * client credentials (OAuth 2.0 client_credentials grant to `tokenUrl`, default Microsoft's
 * endpoint for the tenant). One token per upstream and credentials, cached in the process until
 * a minute before it expires; concurrent requests share one fetch. The secret and the token
 * never reach a log or an error message.
 */
import { createHash } from "node:crypto";
import { processSingleton } from "../../process-singleton";
import { errors, type Outcome } from "../errors";
import type { UpstreamInfo } from "../model-route";
import { callUpstream, readJson } from "./http";

/** The scope of Azure OpenAI (Cognitive Services) data-plane calls. */
export const AZURE_OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default";
/** Refreshed this long before it expires, so a request never leaves with a token about to lapse. */
const REFRESH_MARGIN_MS = 60_000;
const TOKEN_TIMEOUT_MS = 10_000;

interface Cached {
  token?: string;
  expiresAt: number;
  pending?: Promise<Outcome<{ token: string; expiresAt: number }>>;
}

const cache = processSingleton("gateway.azure.entraTokens", () => new Map<string, Cached>());

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
  const key = createHash("sha256").update(`${u.id}\0${url}\0${clientId}\0${secret}`).digest("base64url");
  const map = cache();
  let entry = map.get(key);
  if (entry?.token && entry.expiresAt - REFRESH_MARGIN_MS > now) return { ok: true, value: entry.token };
  if (!entry) map.set(key, (entry = { expiresAt: 0 }));
  entry.pending ??= fetchToken(url, clientId, secret, signal).finally(() => {
    entry.pending = undefined;
  });
  const got = await entry.pending;
  if (!got.ok) return got;
  entry.token = got.value.token;
  entry.expiresAt = got.value.expiresAt;
  return { ok: true, value: got.value.token };
}

async function fetchToken(url: string, clientId: string, secret: string, signal?: AbortSignal): Promise<Outcome<{ token: string; expiresAt: number }>> {
  const body = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secret, scope: AZURE_OPENAI_SCOPE }).toString();
  const opened = await callUpstream({ url, headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body, signal, timeoutMs: TOKEN_TIMEOUT_MS, secret });
  // Any refusal is the operator's configuration, never the client's request: a 502 that fails over.
  if (!opened.ok) return opened.error.status === 499 ? opened : { ok: false, error: errors.upstream(`Could not get an Entra ID token for the upstream (${opened.error.status}).`), retryable: opened.retryable, failover: true };
  const json = await readJson(opened.value, signal);
  if (!json.ok) return json;
  const token = json.value.access_token;
  const expiresIn = Number(json.value.expires_in);
  if (typeof token !== "string" || !token || !Number.isFinite(expiresIn) || expiresIn <= 0)
    return { ok: false, error: errors.upstream("The Entra ID token endpoint answered without a usable token."), retryable: true };
  return { ok: true, value: { token, expiresAt: Date.now() + expiresIn * 1000 } };
}
