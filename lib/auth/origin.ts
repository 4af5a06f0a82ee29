/**
 * Cross-site request refusal for console route handlers. Next.js checks Origin for Server
 * Actions only; route handlers with cookie sessions are CSRF targets (key creation, Checkout).
 * Rules for state-changing methods:
 *  - `Origin` must be this site (PUBLIC_BASE_URL, or the Host the request came to);
 *  - `Origin: null` (sandboxed iframes, some redirects; GHSA-mq59-m269-xvcx) is refused;
 *  - no `Origin` at all is refused unless `Sec-Fetch-Site: same-origin` (browsers always send
 *    Origin on fetch POSTs; only non-browser clients omit it, and they have no business here).
 */
import { env } from "../env";
import type { Result } from "../result";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export type OriginVerdict = Result<void, "missing_origin" | "null_origin" | "cross_origin">;

const SAME: OriginVerdict = { ok: true, value: undefined };

export function checkOrigin(method: string, headers: Headers): OriginVerdict {
  if (SAFE.has(method.toUpperCase())) return SAME;
  const origin = headers.get("origin");
  if (origin === null) {
    return headers.get("sec-fetch-site") === "same-origin" ? SAME : { ok: false, error: "missing_origin" };
  }
  if (origin.trim().toLowerCase() === "null") return { ok: false, error: "null_origin" };
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { ok: false, error: "cross_origin" };
  }
  if (url.origin === new URL(env().publicBaseUrl).origin) return SAME;
  const host = (headers.get("x-forwarded-host") ?? headers.get("host") ?? "").split(",")[0]!.trim().toLowerCase();
  if (host && url.host.toLowerCase() === host) return SAME;
  return { ok: false, error: "cross_origin" };
}
