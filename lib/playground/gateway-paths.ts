/**
 * Which public API routes the playground may reach, as `METHOD /path` patterns. Everything
 * else under /api/playground/v1… is a 404: the proxy is not a second way into the whole API.
 */
const ALLOWED: { method: string; path: RegExp }[] = [
  { method: "POST", path: /^\/v1\/chat\/completions$/ },
  { method: "POST", path: /^\/v1\/responses$/ },
  { method: "POST", path: /^\/v1\/messages$/ },
  { method: "POST", path: /^\/v1beta\/models\/[^/]+:(generateContent|streamGenerateContent)$/ },
  { method: "POST", path: /^\/v1\/images\/(generations|edits)$/ },
  { method: "POST", path: /^\/v1\/audio\/(speech|transcriptions|translations)$/ },
  { method: "POST", path: /^\/v1\/videos$/ },
  { method: "GET", path: /^\/v1\/videos$/ },
  { method: "GET", path: /^\/v1\/videos\/[^/]+$/ },
  { method: "GET", path: /^\/v1\/videos\/[^/]+\/content$/ },
  { method: "GET", path: /^\/v1\/tasks\/[^/]+$/ },
];

export function playgroundAllows(method: string, gatewayPath: string): boolean {
  const m = method.toUpperCase();
  return ALLOWED.some((a) => a.method === m && a.path.test(gatewayPath));
}

/** `/api/playground/v1/x` → `/v1/x`; null when the path is not under the proxy. */
export function gatewayPathOf(pathname: string): string | null {
  const m = /^\/api\/playground(\/v1(?:beta)?\/.*)$/.exec(pathname);
  return m ? m[1]! : null;
}
