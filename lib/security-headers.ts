/**
 * Security headers on every response (issue 12, item 8). Pages get a CSP with a fresh nonce per
 * request (proxy.ts; Next.js puts the nonce on its own scripts when it finds it in the request's
 * CSP), everything else (the public API, console JSON routes, health, metrics) a CSP that allows
 * nothing at all, since none of it is meant to be rendered as a document. No page may be framed.
 */

/** On every response, page or not. */
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // Console URLs carry ids and callback paths; other sites need not see them.
  "referrer-policy": "same-origin",
};

/** Responses that are data, never documents: /v1, /v1beta, /api, /healthz, /metrics. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = { ...BASE_SECURITY_HEADERS, "content-security-policy": API_CSP };

/**
 * The console's pages. Scripts: only those carrying this response's nonce, and what they load
 * ('strict-dynamic'); no inline script without the nonce, no eval, no other origin. Styles:
 * the site's own stylesheet plus inline style attributes (React and Next set some; a style
 * cannot run code). Images: the site, data: (generated images arrive as base64) and blob:.
 * Video: the site and blob:. Fetches: the site only. No plugins, no framing, no <base>.
 */
export function pageCsp(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "worker-src 'self' blob:",
    "manifest-src 'self'",
  ].join("; ");
}
