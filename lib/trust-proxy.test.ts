import { describe, expect, it } from "vitest";
import { addressBucket, clientAddress, normalizeAddress, parseTrustProxy, type TrustProxy } from "./trust-proxy";

const trust = (v: string) => parseTrustProxy(v) as TrustProxy;

describe("TRUST_PROXY", () => {
  it("parses off, hop counts and CIDR lists, and refuses the rest", () => {
    expect(parseTrustProxy(undefined)).toEqual({ kind: "none" });
    expect(parseTrustProxy("false")).toEqual({ kind: "none" });
    expect(parseTrustProxy("0")).toEqual({ kind: "none" });
    expect(parseTrustProxy("2")).toEqual({ kind: "hops", hops: 2 });
    expect((trust("10.0.0.0/8, ::1, 192.168.1.7") as { ranges: unknown[] }).ranges).toHaveLength(3);
    expect(parseTrustProxy("true")).toMatch(/hop count/);
    expect(parseTrustProxy("10.0.0.0/8,not-an-ip")).toMatch(/not-an-ip/);
  });
});

describe("clientAddress", () => {
  it("uses the socket peer and ignores X-Forwarded-For without TRUST_PROXY", () => {
    expect(clientAddress("203.0.113.9", "1.2.3.4", trust(""))).toBe("203.0.113.9");
    expect(clientAddress("::ffff:127.0.0.1", undefined, trust(""))).toBe("127.0.0.1");
    expect(clientAddress(undefined, "1.2.3.4", trust(""))).toBe("unknown");
  });

  it("with a hop count takes the entry that many hops from the right", () => {
    // client forged "6.6.6.6"; our one proxy appended the real 198.51.100.7
    expect(clientAddress("10.0.0.2", "6.6.6.6, 198.51.100.7", trust("1"))).toBe("198.51.100.7");
    expect(clientAddress("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.1", trust("2"))).toBe("198.51.100.7");
    // Fewer entries than hops: the left-most one there is (a misconfiguration, not a bypass).
    expect(clientAddress("10.0.0.2", undefined, trust("1"))).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", ["6.6.6.6", "198.51.100.7"], trust("1"))).toBe("198.51.100.7");
  });

  it("with CIDRs takes the right-most untrusted entry", () => {
    const t = trust("10.0.0.0/8,127.0.0.1");
    expect(clientAddress("127.0.0.1", "6.6.6.6, 198.51.100.7, 10.1.2.3", t)).toBe("198.51.100.7");
    expect(clientAddress("203.0.113.5", "6.6.6.6", t)).toBe("203.0.113.5"); // peer not a proxy: XFF ignored
    expect(clientAddress("127.0.0.1", "garbage, 10.1.2.3", t)).toBe("invalid:garbage");
    expect(clientAddress("127.0.0.1", "[2001:db8::1]:443", t)).toBe("2001:db8::1");
    expect(clientAddress("127.0.0.1", "198.51.100.7:5555", t)).toBe("198.51.100.7");
  });

  it("normalises and buckets addresses", () => {
    expect(normalizeAddress("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(normalizeAddress("nope")).toBeNull();
    expect(addressBucket("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("10.0.0.1")).toBe("10.0.0.1");
  });
});
