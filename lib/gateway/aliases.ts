/**
 * Model aliases: a name, or a wildcard pattern (`claude-sonnet-4-5-*`, `gemini-*-flash`), standing
 * for an ordered list of model ids. Precedence (docs/decisions/0022-alias-precedence.md): an exact
 * model id wins over any alias, an exact alias name over any pattern, and among patterns the most
 * specific one (most literal characters, then fewest `*`, then alphabetical) wins.
 */

export interface Alias {
  id: string;
  /** Public model ids, in failover order. */
  targets: string[];
  contextFallback: boolean;
}

export interface AliasTable {
  exact: Map<string, Alias>;
  /** Most specific first; `parts` is the pattern split at its stars. */
  patterns: { alias: Alias; parts: string[] }[];
  /** Requested id → its pattern match (null = none); bounded. */
  memo: Map<string, Alias | null>;
}

const MEMO_MAX = 4096;

export const isPattern = (id: string) => id.includes("*");

/**
 * Whether `id` matches a pattern split at its stars: the first part is a prefix, the last a
 * suffix, and each middle part is found after the one before (its leftmost place is always the
 * best, as `*` takes any run). One pass over the id, never backtracking: a regular expression of
 * several `.*` is quadratic (cubic with three) on a long id that almost matches.
 */
export function matchesPattern(parts: readonly string[], id: string): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (parts.length === 1) return id === first;
  if (id.length < first.length + last.length || !id.startsWith(first) || !id.endsWith(last)) return false;
  const end = id.length - last.length;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const k = id.indexOf(part, at);
    if (k < 0 || k + part.length > end) return false;
    at = k + part.length;
  }
  return true;
}

/** Orders patterns from the most specific to the least. */
export function comparePatterns(a: string, b: string): number {
  const lit = (s: string) => s.replaceAll("*", "").length;
  const stars = (s: string) => s.split("*").length - 1;
  return lit(b) - lit(a) || stars(a) - stars(b) || a.localeCompare(b);
}

export function aliasTable(list: Alias[]): AliasTable {
  const exact = new Map<string, Alias>();
  const patterns: AliasTable["patterns"] = [];
  for (const a of list) {
    if (isPattern(a.id)) patterns.push({ alias: a, parts: a.id.split("*") });
    else exact.set(a.id, a);
  }
  patterns.sort((x, y) => comparePatterns(x.alias.id, y.alias.id));
  return { exact, patterns, memo: new Map() };
}

/** The alias a requested id names (call only when no model has that exact id). */
export function matchAlias(t: AliasTable, id: string): Alias | null {
  const exact = t.exact.get(id);
  if (exact) return exact;
  if (!t.patterns.length) return null;
  const known = t.memo.get(id);
  if (known !== undefined) return known;
  const hit = t.patterns.find((p) => matchesPattern(p.parts, id))?.alias ?? null;
  if (t.memo.size >= MEMO_MAX) t.memo.clear();
  t.memo.set(id, hit);
  return hit;
}
