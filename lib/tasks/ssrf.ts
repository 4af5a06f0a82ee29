/**
 * SSRF guard for client-supplied webhook URLs (docs/webhooks.md; the address
 * forms every guard must refuse are in __fixtures__/hostile-webhook-urls.ts).
 *
 * Two layers, both needed:
 *  - at submission, `checkWebhookUrl` refuses the URL's shape, literal addresses and every
 *    address its host name resolves to (any private answer fails the whole name);
 *  - at delivery, the dispatcher in guarded-dispatcher.ts checks the address it actually
 *    connects to, so a name that rebinds to 127.0.0.1 after submission is still refused.
 *
 * Addresses are classified with ipaddr.js and only its `unicast` range passes: that is
 * stricter than a list of private ranges and also covers NAT64, 6to4, Teredo, documentation
 * and benchmarking ranges. Never regex the URL string: WHATWG URL parsing has already turned
 * decimal, hex, octal, short and full-width IPv4 forms into dotted quads, and IPv4-mapped IPv6
 * into hex groups, so we classify the parsed address instead.
 */
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import type { Result } from "../result";

/** Resolves a host name to every address it has; injectable so tests never use real DNS. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface WebhookUrlPolicy {
  /** Normalized host name of this service (from PUBLIC_BASE_URL); it and its subdomains are refused. */
  selfHost: string | null;
  /** `host:port` of this service, as compared with allow-list entries. */
  selfHostPort: string | null;
  /** Exact `host:port` pairs exempt from the private-address rule (WEBHOOK_ALLOW_HOSTS). */
  allowHosts: ReadonlySet<string>;
  resolve: Resolver;
  /** Resolution time limit; an unresolvable name is refused. */
  resolveTimeoutMs?: number;
}

/** The error completes the sentence "the URL …" (e.g. "points at this service"). */
export type UrlVerdict = Result<{ url: URL; allowListed: boolean }, string>;

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Name suffixes that only ever mean something inside a network. */
const INTERNAL_SUFFIXES = ["localhost", "local", "internal", "localdomain", "home.arpa", "intranet", "corp", "lan"];

/** Why an address must not be dialled, or null when it is a public unicast address. */
export function blockedAddressReason(address: string): string | null {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return "not an IP address";
  let addr = ipaddr.parse(bare);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  if (range !== "unicast") return `${range} address`;
  // ::/96 (IPv4-compatible, deprecated) embeds an IPv4 address that ipaddr.js calls unicast.
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) {
    return "IPv4-compatible IPv6 address";
  }
  return null;
}

/** `host:port` as the allow-list compares it: WHATWG-normalized host (brackets kept), effective port. */
export function hostPortOf(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname.toLowerCase()}:${port}`;
}

function stripDots(host: string): string {
  return host.toLowerCase().replace(/\.+$/, "");
}

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || net.isIPv4(hostname);
}

/** Checks everything that needs no DNS: scheme, credentials, length, literal addresses, names. */
export function checkWebhookUrlShape(raw: unknown, policy: WebhookUrlPolicy): UrlVerdict {
  if (typeof raw !== "string" || raw.trim() === "") return { ok: false, error: "must be a URL string" };
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, error: `is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: "is not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, error: "must use http or https" };
  if (url.username || url.password) return { ok: false, error: "must not contain credentials" };
  if (!url.hostname) return { ok: false, error: "has no host" };

  const hostPort = hostPortOf(url);
  const allowListed = policy.allowHosts.has(hostPort);
  const host = stripDots(url.hostname);
  if (policy.selfHost && (host === policy.selfHost || host.endsWith(`.${policy.selfHost}`))) {
    // An operator's explicit host:port exemption wins, except for this service's own port.
    if (!allowListed || hostPort === policy.selfHostPort) return { ok: false, error: "points at this service" };
  }
  if (allowListed) return { ok: true, value: { url, allowListed } };

  if (isIpLiteral(url.hostname)) {
    const why = blockedAddressReason(url.hostname);
    return why ? { ok: false, error: `points at a non-public address (${why})` } : { ok: true, value: { url, allowListed } };
  }
  if (!/^[a-z0-9._-]+$/.test(host)) return { ok: false, error: "has an invalid host name" };
  if (INTERNAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) {
    return { ok: false, error: "points at an internal host name" };
  }
  return { ok: true, value: { url, allowListed } };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("DNS lookup timed out")), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

/** Resolves a name and refuses it when any answer is not public (or there is none). */
export async function checkResolvedHost(hostname: string, policy: WebhookUrlPolicy): Promise<Result<string[], string>> {
  let addresses: string[];
  try {
    addresses = await withTimeout(policy.resolve(stripDots(hostname)), policy.resolveTimeoutMs ?? 5000);
  } catch {
    return { ok: false, error: "has a host name that could not be resolved" };
  }
  if (addresses.length === 0) return { ok: false, error: "has a host name that could not be resolved" };
  for (const a of addresses) {
    const why = blockedAddressReason(a);
    if (why) return { ok: false, error: `has a host name that resolves to a non-public address (${why})` };
  }
  return { ok: true, value: addresses };
}

/** The full submission-time check: shape, then DNS for host names. */
export async function checkWebhookUrl(raw: unknown, policy: WebhookUrlPolicy): Promise<UrlVerdict> {
  const shape = checkWebhookUrlShape(raw, policy);
  if (!shape.ok || shape.value.allowListed || isIpLiteral(shape.value.url.hostname)) return shape;
  const resolved = await checkResolvedHost(shape.value.url.hostname, policy);
  return resolved.ok ? shape : resolved;
}

/** The policy from PUBLIC_BASE_URL and WEBHOOK_ALLOW_HOSTS. */
export function makePolicy(input: { publicBaseUrl: string; allowHosts: string[]; resolve?: Resolver }): WebhookUrlPolicy {
  let selfHost: string | null = null;
  let selfHostPort: string | null = null;
  try {
    const u = new URL(input.publicBaseUrl);
    selfHost = stripDots(u.hostname);
    selfHostPort = hostPortOf(u);
  } catch {
    // An unparsable PUBLIC_BASE_URL is reported by the server at start; nothing to compare here.
  }
  return {
    selfHost,
    selfHostPort,
    allowHosts: new Set(input.allowHosts.map((h) => h.trim().toLowerCase()).filter(Boolean)),
    resolve: input.resolve ?? systemResolver,
  };
}
