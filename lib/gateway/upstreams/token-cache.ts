/**
 * Access tokens the gateway fetches for an upstream (Entra ID, Google service accounts): one per
 * key (upstream and credentials), kept until a minute before it expires, one fetch at a time.
 * The credential and the token never reach a log or an error message.
 */
import { processSingleton } from "../../process-singleton";
import { errors, type Outcome } from "../errors";
import { callUpstream, readJson } from "./http";

/** Refreshed this long before it expires, so a request never leaves with a token about to lapse. */
const REFRESH_MARGIN_MS = 60_000;

export interface FetchedToken {
  token: string;
  expiresAt: number;
}

interface Cached {
  token?: string;
  expiresAt: number;
  pending?: Promise<Outcome<FetchedToken>>;
}

const cache = processSingleton("gateway.upstreamTokens", () => new Map<string, Cached>());

export async function cachedToken(key: string, fetch: () => Promise<Outcome<FetchedToken>>, now = Date.now()): Promise<Outcome<string>> {
  const map = cache();
  let entry = map.get(key);
  if (entry?.token && entry.expiresAt - REFRESH_MARGIN_MS > now) return { ok: true, value: entry.token };
  if (!entry) map.set(key, (entry = { expiresAt: 0 }));
  const e = entry;
  e.pending ??= fetch().finally(() => {
    e.pending = undefined;
  });
  const got = await e.pending;
  if (!got.ok) return got;
  e.token = got.value.token;
  e.expiresAt = got.value.expiresAt;
  return { ok: true, value: got.value.token };
}

const TOKEN_TIMEOUT_MS = 10_000;

/**
 * An OAuth 2.0 token request (a form POST) and its `{access_token, expires_in}` answer. Any
 * refusal is the operator's configuration, never the client's request: a 502 that fails over.
 */
export async function postForToken(url: string, form: Record<string, string>, what: string, secret: string, signal?: AbortSignal): Promise<Outcome<FetchedToken>> {
  const body = new URLSearchParams(form).toString();
  const opened = await callUpstream({ url, headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body, signal, timeoutMs: TOKEN_TIMEOUT_MS, secret });
  if (!opened.ok) return opened.error.status === 499 ? opened : { ok: false, error: errors.upstream(`Could not get ${what} token for the upstream (${opened.error.status}).`), retryable: opened.retryable, failover: true };
  const json = await readJson(opened.value, signal);
  if (!json.ok) return json;
  const token = json.value.access_token;
  const expiresIn = Number(json.value.expires_in);
  if (typeof token !== "string" || !token || !Number.isFinite(expiresIn) || expiresIn <= 0) return { ok: false, error: errors.upstream(`The ${what} token endpoint answered without a usable token.`), retryable: true };
  return { ok: true, value: { token, expiresAt: Date.now() + expiresIn * 1000 } };
}
