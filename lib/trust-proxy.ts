/**
 * Which address a request comes from. The socket's peer, unless TRUST_PROXY says that peer is
 * a proxy of ours: then walk `X-Forwarded-For` from the right (each proxy appends the address
 * it saw) past the trusted hops, and take the first untrusted entry. The left-most entries are
 * whatever the client wrote and are never believed.
 *
 * TRUST_PROXY: unset/"false"/"0" = no proxy; a whole number N = N proxies in front (Express's
 * hop-count meaning); otherwise a comma list of addresses or CIDR ranges of our proxies.
 */
import ipaddr from "ipaddr.js";

export type TrustProxy = { kind: "none" } | { kind: "hops"; hops: number } | { kind: "cidrs"; ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] };

/** The parsed setting, or a message saying what is wrong with it. */
export function parseTrustProxy(value: string | undefined): TrustProxy | string {
  const v = (value ?? "").trim();
  if (v === "" || ["false", "no", "off", "0"].includes(v.toLowerCase())) return { kind: "none" };
  if (/^\d+$/.test(v)) return { kind: "hops", hops: Math.min(Number(v), 32) };
  if (v.toLowerCase() === "true") return 'must be a hop count or a list of proxy CIDRs ("true" would believe any client-written address)';
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const part of v.split(",").map((s) => s.trim()).filter(Boolean)) {
    try {
      if (part.includes("/")) ranges.push(ipaddr.parseCIDR(part));
      else {
        const a = ipaddr.process(part);
        ranges.push([a, a.kind() === "ipv4" ? 32 : 128]);
      }
    } catch {
      return `"${part}" is not an address or CIDR range (want a hop count or e.g. "10.0.0.0/8,::1")`;
    }
  }
  return { kind: "cidrs", ranges };
}

/** An address in canonical form (IPv4-mapped IPv6 as IPv4; ports and brackets removed), or null. */
export function normalizeAddress(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let s = raw.trim();
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracket) s = bracket[1]!;
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  if (!ipaddr.isValid(s)) return null;
  try {
    return ipaddr.process(s).toString();
  } catch {
    return null;
  }
}

function trusted(addr: string, t: TrustProxy & { kind: "cidrs" }): boolean {
  const a = ipaddr.process(addr);
  return t.ranges.some(([range, bits]) => a.kind() === range.kind() && a.match(range, bits));
}

/**
 * The client's address: `socket` is the TCP peer, `forwardedFor` the X-Forwarded-For value(s).
 * "unknown" when there is no usable address at all.
 */
export function clientAddress(socket: string | undefined | null, forwardedFor: string | string[] | undefined | null, trust: TrustProxy): string {
  const peer = normalizeAddress(socket);
  if (trust.kind === "none" || !peer) return peer ?? "unknown";
  const xff = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "")).split(",").map((s) => s.trim()).filter(Boolean);
  // Right to left: the peer, then what each proxy appended.
  const chain = [peer, ...xff.reverse()];
  if (trust.kind === "hops") {
    const picked = chain[Math.min(trust.hops, chain.length - 1)]!;
    return normalizeAddress(picked) ?? `invalid:${picked.slice(0, 64)}`;
  }
  for (const hop of chain) {
    const a = normalizeAddress(hop);
    // An unparsable entry is where trust ends: it is the client's own word, used as its bucket.
    if (!a) return `invalid:${hop.slice(0, 64)}`;
    if (!trusted(a, trust)) return a;
  }
  return normalizeAddress(chain[chain.length - 1]) ?? peer;
}

/** The bucket a limit counts an address in: IPv6 by /64 (one customer usually holds a whole /64). */
export function addressBucket(addr: string): string {
  if (!ipaddr.isValid(addr)) return addr;
  const a = ipaddr.parse(addr);
  if (a.kind() === "ipv4") return addr;
  const parts = (a as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(":")}::/64`;
}
