/** A console route's query string from filters; shared by the client hooks and the server prefetch. */
export function usageQuery(f: Record<string, string | undefined>, extra: Record<string, string | number | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

export const USAGE_FILTER_KEYS = ["keyId", "memberId", "requestId", "source", "model", "status", "from", "to"] as const;

/** The Usage page's filters from its URL, as its hooks key them. */
export function usageFilters(get: (k: string) => string | null | undefined): Partial<Record<(typeof USAGE_FILTER_KEYS)[number], string>> {
  const f: Partial<Record<(typeof USAGE_FILTER_KEYS)[number], string>> = {};
  for (const k of USAGE_FILTER_KEYS) {
    const v = get(k);
    if (v) f[k] = v;
  }
  return f;
}
