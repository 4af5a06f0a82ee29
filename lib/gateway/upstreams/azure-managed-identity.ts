/**
 * Azure managed identity tokens for `azure-openai` upstreams with neither an `apiKey` nor a
 * client secret (the deployment's own identity; `clientId` picks a user-assigned one):
 * - App Service / Functions / Container Apps: GET {IDENTITY_ENDPOINT}?api-version=2019-08-01
 *   &resource=… with `X-IDENTITY-HEADER: {IDENTITY_HEADER}` (both set by the platform);
 * - elsewhere (VMs, AKS): the instance metadata service, GET
 *   http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01&resource=…
 *   with `Metadata: true` — or the upstream's `tokenUrl`, which speaks the same protocol.
 * Cached like every fetched token (token-cache.ts: until a minute before expiry, one fetch at a
 * time); the identity header and the token never reach a log or an error message.
 * @see https://learn.microsoft.com/entra/identity/managed-identities-azure-resources/how-to-use-vm-token
 * @see https://learn.microsoft.com/azure/app-service/overview-managed-identity#rest-endpoint-reference
 */
import { env } from "../../env";
import { errors, type Outcome } from "../errors";
import type { UpstreamInfo } from "../model-route";
import { callUpstream, readJson } from "./http";
import { cachedToken, type FetchedToken } from "./token-cache";

/** The resource (not a scope) managed identity endpoints take for Azure OpenAI. */
export const AZURE_OPENAI_RESOURCE = "https://cognitiveservices.azure.com";
export const AZURE_IMDS_TOKEN_URL = "http://169.254.169.254/metadata/identity/oauth2/token";
const TOKEN_TIMEOUT_MS = 10_000;

interface Endpoint {
  url: string;
  headers: Record<string, string>;
  secret?: string;
}

/** The endpoint to ask: the upstream's tokenUrl, App Service's, or the instance metadata service. */
function endpointFor(u: UpstreamInfo): Endpoint {
  const clientId = u.settings?.clientId;
  const query = (version: string) => `api-version=${version}&resource=${encodeURIComponent(AZURE_OPENAI_RESOURCE)}${clientId ? `&client_id=${encodeURIComponent(clientId)}` : ""}`;
  const e = env();
  if (!u.settings?.tokenUrl && e.IDENTITY_ENDPOINT && e.IDENTITY_HEADER)
    return { url: `${e.IDENTITY_ENDPOINT}?${query("2019-08-01")}`, headers: { "x-identity-header": e.IDENTITY_HEADER }, secret: e.IDENTITY_HEADER };
  const base = u.settings?.tokenUrl ?? AZURE_IMDS_TOKEN_URL;
  return { url: `${base}${base.includes("?") ? "&" : "?"}${query("2018-02-01")}`, headers: { metadata: "true" } };
}

export async function managedIdentityToken(u: UpstreamInfo, signal?: AbortSignal, now = Date.now()): Promise<Outcome<string>> {
  const at = endpointFor(u);
  return cachedToken(`azure-mi\0${u.id}\0${at.url}`, () => fetchToken(at, signal), now);
}

async function fetchToken(at: Endpoint, signal?: AbortSignal): Promise<Outcome<FetchedToken>> {
  const opened = await callUpstream({ url: at.url, method: "GET", headers: Object.assign({ accept: "application/json" }, at.headers), signal, timeoutMs: TOKEN_TIMEOUT_MS, secret: at.secret });
  if (!opened.ok)
    return opened.error.status === 499 ? opened : { ok: false, error: errors.upstream(`Could not get a managed identity token for the upstream (${opened.error.status}).`), retryable: opened.retryable, failover: true };
  const json = await readJson(opened.value, signal);
  if (!json.ok) return json;
  const token = json.value.access_token;
  // IMDS gives expires_in (seconds, as a string); App Service only expires_on (epoch seconds).
  const expiresIn = Number(json.value.expires_in);
  const expiresOn = Number(json.value.expires_on);
  const expiresAt = Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 : Number.isFinite(expiresOn) && expiresOn > 0 ? expiresOn * 1000 : NaN;
  if (typeof token !== "string" || !token || !Number.isFinite(expiresAt)) return { ok: false, error: errors.upstream("The managed identity endpoint answered without a usable token."), retryable: true };
  return { ok: true, value: { token, expiresAt } };
}
