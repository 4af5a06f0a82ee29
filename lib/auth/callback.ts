/**
 * Where to go after signing in: a path on this site, never another origin (an open redirect is
 * a phishing aid). The value is parsed as the browser will parse it (WHATWG URL: TAB and
 * newlines dropped, `\` read as `/`), so `/%09/evil.example` or `/\evil.example` cannot become
 * `//evil.example`. Absolute URLs on the site's own origin are reduced to their path.
 */
const FALLBACK = "/overview";
// Any fixed origin works for the relative case; the site's own is passed in when known.
const PLACEHOLDER_ORIGIN = "http://gateway.invalid";

export function safeCallback(url: string | null | undefined, siteOrigin: string = PLACEHOLDER_ORIGIN): string {
  if (!url || url.length > 2048) return FALLBACK;
  let base: URL;
  let parsed: URL;
  try {
    base = new URL(siteOrigin);
    parsed = new URL(url, base);
  } catch {
    return FALLBACK;
  }
  if (parsed.origin !== base.origin) return FALLBACK;
  const path = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  // `/.//evil.example` normalises to the path `//evil.example`, which a browser would read as
  // another host: the result must parse back to this origin too.
  if (!path.startsWith("/") || path.startsWith("//") || new URL(path, base).origin !== base.origin) return FALLBACK;
  return path;
}
