/**
 * The undici dispatcher every webhook delivery goes through. Its `connect` resolves the host
 * itself, refuses any non-public answer and then dials exactly the address it checked, so DNS
 * rebinding between the submission check and delivery cannot reach an internal service.
 * Literal-IP hosts are checked here too: undici never calls a `lookup` hook for them, which is
 * why a lookup-only guard is not enough.
 *
 * Node's global `fetch` ignores `http.Agent`-based filters; deliveries use `undici.request`
 * with this dispatcher explicitly, and never follow redirects (undici's request() does not).
 */
import net from "node:net";
import { Agent, buildConnector } from "undici";
import { blockedAddressReason, checkResolvedHost, type WebhookUrlPolicy } from "./ssrf";

export class SsrfBlockedError extends Error {
  readonly code = "ESSRFBLOCKED";
  constructor(reason: string) {
    super(`blocked: ${reason}`);
  }
}

export interface GuardedAgentOptions {
  policy: WebhookUrlPolicy;
  connectTimeoutMs?: number;
  /**
   * The connector that dials the checked address. Tests pass one that refuses anything but
   * loopback as a second fence, so a regression here can never send traffic elsewhere.
   */
  baseConnect?: buildConnector.connector;
}

export function guardedConnector(opts: GuardedAgentOptions): buildConnector.connector {
  const base = opts.baseConnect ?? buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000 });
  return (options, callback) => {
    const { hostname, protocol } = options;
    const port = options.port || (protocol === "https:" ? "443" : "80");
    const hostKey = `${net.isIPv6(hostname) ? `[${hostname}]` : hostname.toLowerCase()}:${port}`;
    if (opts.policy.allowHosts.has(hostKey)) {
      base(options, callback);
      return;
    }
    if (net.isIP(hostname)) {
      const why = blockedAddressReason(hostname);
      if (why) callback(new SsrfBlockedError(`the address is not public (${why})`), null);
      else base(options, callback);
      return;
    }
    checkResolvedHost(hostname, opts.policy).then(
      (r) => {
        if (!r.ok) return callback(new SsrfBlockedError(`the URL ${r.error}`), null);
        // Dial the checked address; TLS still verifies the certificate for the name.
        base({ ...options, hostname: r.value[0]!, servername: options.servername || hostname }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
}

export function createGuardedAgent(opts: GuardedAgentOptions): Agent {
  return new Agent({ connect: guardedConnector(opts) });
}

/** A base connector that dials loopback only: the second fence used by tests. */
export function loopbackOnlyConnector(): buildConnector.connector {
  const base = buildConnector({ timeout: 5_000 });
  return (options, callback) => {
    const h = options.hostname;
    if (!(h === "127.0.0.1" || h === "::1" || h === "localhost")) {
      callback(new Error(`test fence: refused to dial non-loopback ${h}`), null);
      return;
    }
    base(options, callback);
  };
}
