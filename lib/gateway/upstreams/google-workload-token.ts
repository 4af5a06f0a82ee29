/**
 * Google access tokens for `vertex` upstreams without a service-account key:
 * - no `serviceAccount` at all: the metadata server of the machine the gateway runs on (GCE,
 *   GKE workload identity, Cloud Run), GET http://{GCE_METADATA_HOST or metadata.google.internal}
 *   /computeMetadata/v1/instance/service-accounts/default/token with `Metadata-Flavor: Google`
 *   (the upstream's `tokenUrl` replaces the whole URL);
 * - a `serviceAccount` of `"type": "external_account"` (workload identity federation): the
 *   subject token from its `credential_source` (a file, or a URL with headers; text or JSON
 *   with `subject_token_field_name`), exchanged at its `token_url` (Google's STS, RFC 8693),
 *   then, with `service_account_impersonation_url`, traded for the service account's token.
 * Cached like every fetched token (token-cache.ts); nothing secret reaches a log.
 * @see https://cloud.google.com/compute/docs/access/authenticate-workloads#applications
 * @see https://google.aip.dev/auth/4117 (external account credentials)
 */
import { readFile } from "node:fs/promises";
import { env } from "../../env";
import { errors, type Outcome } from "../errors";
import type { UpstreamInfo } from "../model-route";
import { callUpstream, postJson, readJson } from "./http";
import { cachedToken, postForToken, type FetchedToken } from "./token-cache";

export const GOOGLE_CLOUD_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const TOKEN_TIMEOUT_MS = 10_000;
const METADATA_TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token";

const refused = (what: string, status: number | string): Outcome<never> => ({ ok: false, error: errors.upstream(`Could not get ${what} token for the upstream (${status}).`), retryable: true, failover: true });

export function metadataTokenUrl(u: UpstreamInfo): string {
  return u.settings?.tokenUrl ?? `http://${env().GCE_METADATA_HOST ?? "metadata.google.internal"}${METADATA_TOKEN_PATH}`;
}

/** The metadata server's token for the machine's (or the workload's) service account. */
export function metadataToken(u: UpstreamInfo, signal?: AbortSignal, now = Date.now()): Promise<Outcome<string>> {
  const url = metadataTokenUrl(u);
  return cachedToken(`gce-metadata\0${u.id}\0${url}`, () => fetchMetadataToken(url, signal), now);
}

async function fetchMetadataToken(url: string, signal?: AbortSignal): Promise<Outcome<FetchedToken>> {
  const opened = await callUpstream({ url, method: "GET", headers: { "metadata-flavor": "Google", accept: "application/json" }, signal, timeoutMs: TOKEN_TIMEOUT_MS });
  if (!opened.ok) return opened.error.status === 499 ? opened : refused("a metadata-server", opened.error.status);
  // Whatever answers must be Google's metadata server, not a captive portal or a proxy.
  if (opened.value.headers["metadata-flavor"] !== "Google") {
    await opened.value.body.dump().catch(() => undefined);
    return refused("a metadata-server", "no Metadata-Flavor: Google in the answer");
  }
  return tokenOf(await readJson(opened.value, signal), "a metadata-server");
}

function tokenOf(json: Outcome<Record<string, unknown>>, what: string): Outcome<FetchedToken> {
  if (!json.ok) return json;
  const token = json.value.access_token;
  const expiresIn = Number(json.value.expires_in);
  if (typeof token !== "string" || !token || !Number.isFinite(expiresIn) || expiresIn <= 0) return { ok: false, error: errors.upstream(`The ${what} token endpoint answered without a usable token.`), retryable: true };
  return { ok: true, value: { token, expiresAt: Date.now() + expiresIn * 1000 } };
}

export interface ExternalAccount {
  type: "external_account";
  audience: string;
  subject_token_type: string;
  token_url: string;
  service_account_impersonation_url?: string;
  credential_source: { file?: string; url?: string; headers?: Record<string, string>; format?: { type?: "text" | "json"; subject_token_field_name?: string } };
}

export function isExternalAccount(v: unknown): v is ExternalAccount {
  const x = v as Partial<ExternalAccount> | null;
  return !!x && x.type === "external_account" && typeof x.audience === "string" && typeof x.subject_token_type === "string" && typeof x.token_url === "string" && !!x.credential_source && (typeof x.credential_source.file === "string" || typeof x.credential_source.url === "string");
}

/** Workload identity federation: the platform's token exchanged at Google's STS (and impersonated). */
export function externalAccountToken(u: UpstreamInfo, account: ExternalAccount, signal?: AbortSignal, now = Date.now()): Promise<Outcome<string>> {
  return cachedToken(`google-external\0${u.id}\0${account.audience}\0${account.service_account_impersonation_url ?? ""}`, () => exchange(account, signal), now);
}

async function subjectToken(source: ExternalAccount["credential_source"], signal?: AbortSignal): Promise<Outcome<string>> {
  let text: string;
  if (source.file) {
    try {
      text = await readFile(source.file, "utf8");
    } catch {
      return refused("a workload identity", "the credential source file cannot be read");
    }
  } else {
    const opened = await callUpstream({ url: source.url!, method: "GET", headers: Object.assign({ accept: "application/json, text/plain" }, source.headers), signal, timeoutMs: TOKEN_TIMEOUT_MS });
    if (!opened.ok) return opened.error.status === 499 ? opened : refused("a workload identity", opened.error.status);
    text = await opened.value.body.text();
  }
  if (source.format?.type !== "json") return text.trim() ? { ok: true, value: text.trim() } : refused("a workload identity", "an empty subject token");
  try {
    const v = (JSON.parse(text) as Record<string, unknown>)[source.format.subject_token_field_name ?? ""];
    if (typeof v === "string" && v) return { ok: true, value: v };
  } catch {
    /* below */
  }
  return refused("a workload identity", "no subject token in the credential source");
}

async function exchange(a: ExternalAccount, signal?: AbortSignal): Promise<Outcome<FetchedToken>> {
  const subject = await subjectToken(a.credential_source, signal);
  if (!subject.ok) return subject;
  const sts = await postForToken(
    a.token_url,
    {
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      audience: a.audience,
      scope: GOOGLE_CLOUD_SCOPE,
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      subject_token: subject.value,
      subject_token_type: a.subject_token_type,
    },
    "a Google STS",
    subject.value,
    signal,
  );
  if (!sts.ok || !a.service_account_impersonation_url) return sts;
  // The federated token may call Vertex itself, or (here) act as a service account for an hour.
  const res = await postJson({
    url: a.service_account_impersonation_url,
    headers: { authorization: `Bearer ${sts.value.token}` },
    body: { scope: [GOOGLE_CLOUD_SCOPE], lifetime: "3600s" },
    signal,
    timeoutMs: TOKEN_TIMEOUT_MS,
    secret: sts.value.token,
  });
  if (!res.ok) return res.error.status === 499 ? res : refused("an impersonated service account", res.error.status);
  const token = res.value.accessToken;
  const expiresAt = Date.parse(String(res.value.expireTime));
  if (typeof token !== "string" || !token || !Number.isFinite(expiresAt)) return { ok: false, error: errors.upstream("The impersonation endpoint answered without a usable token."), retryable: true };
  return { ok: true, value: { token, expiresAt } };
}

