/**
 * Hostile webhook URLs shared by the unit test of the SSRF guard and the integration test
 * against the running server. The service's own domain is `gateway.example.com` here; callers
 * add their own PUBLIC_BASE_URL variants.
 */
import type { Resolver } from "../ssrf";

/** A resolver with a fixed table; unknown names fail like NXDOMAIN. No real DNS in tests. */
export function tableResolver(table: Record<string, string[]>): Resolver {
  return async (host) => {
    const hit = table[host];
    if (!hit) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return hit;
  };
}

export const hostileResolver = tableResolver({
  "example.com": ["93.184.216.34"],
  "hooks.example.org": ["2606:4700:4700::1111"],
  "rebind.example.net": ["127.0.0.1"],
  "mixed.example.net": ["93.184.216.34", "127.0.0.1"],
  "ten.example.net": ["10.0.0.5"],
  "mapped.example.net": ["::ffff:169.254.169.254"],
  "meta.example.net": ["169.254.169.254"],
  "v6local.example.net": ["fd00:ec2::254"],
});

/** Every one of these must be refused (DNS-rebinding, alternate IP encodings and redirects to private ranges). */
export const HOSTILE_WEBHOOK_URLS: string[] = [
  // loopback in every IPv4 notation
  "http://127.0.0.1/hook",
  "http://127.1/",
  "http://2130706433/",
  "http://0x7f000001/",
  "http://0x7f.1/",
  "http://0177.0.0.1/",
  "http://017700000001/",
  "http://①②⑦.0.0.1/",
  "http://127.0.0.1:9999@evil.example.com/",
  "http://127.255.255.254:8080/",
  // unspecified
  "http://0/",
  "http://0.0.0.0/",
  "http://0.1.2.3/",
  // names that mean "this machine" or an internal network
  "http://localhost/",
  "http://LOCALHOST./",
  "http://foo.localhost/",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://printer.local/",
  // private, CGNAT, link-local, reserved, multicast, broadcast
  "http://10.0.0.1/",
  "http://172.16.0.1/",
  "http://172.31.255.255/",
  "http://192.168.1.1/",
  "http://100.64.0.1/",
  "http://169.254.169.254/latest/meta-data/",
  "http://169.254.170.2/",
  "http://192.0.0.192/",
  "http://198.18.0.1/",
  "http://224.0.0.1/",
  "http://240.0.0.1/",
  "http://255.255.255.255/",
  "http://192.0.2.1/",
  // IPv6 forms
  "http://[::]/",
  "http://[::1]/",
  "http://[0:0:0:0:0:0:0:1]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:7f00:1]/",
  "http://[::ffff:169.254.169.254]/",
  "http://[::ffff:10.0.0.1]/",
  "http://[::127.0.0.1]/",
  "http://[64:ff9b::7f00:1]/",
  "http://[2002:7f00:1::]/",
  "http://[fe80::1]/",
  "http://[fc00::1]/",
  "http://[fd00:ec2::254]/",
  "http://[ff02::1]/",
  "http://[2001:db8::1]/",
  // the service's own domain
  "https://gateway.example.com/v1/hook",
  "https://GATEWAY.example.com./hook",
  "https://api.gateway.example.com/hook",
  "http://gateway.example.com:8080/hook",
  // names that resolve to non-public addresses (stubbed resolver)
  "https://rebind.example.net/hook",
  "https://mixed.example.net/hook",
  "https://ten.example.net/hook",
  "https://mapped.example.net/hook",
  "https://meta.example.net/hook",
  "https://v6local.example.net/hook",
  "https://does-not-resolve.example.net/hook",
  // schemes and shapes
  "ftp://example.com/hook",
  "file:///etc/passwd",
  "gopher://example.com/",
  "data:text/plain,hello",
  "javascript:alert(1)",
  "ws://example.com/hook",
  "https://user:pass@example.com/hook",
  "https://evil.com@127.0.0.1/",
  "https://token@example.com/",
  "not a url",
  "/relative/path",
  "",
  `https://example.com/${"a".repeat(2100)}`,
  // a loopback address on a port that is not in the allow-list
  "http://127.0.0.1:9997/",
];

