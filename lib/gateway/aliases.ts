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
  /** Most specific first. */
  patterns: { alias: Alias; re: RegExp }[];
  /** Requested id → its pattern match (null = none); bounded. */
  memo: Map<string, Alias | null>;
}

const MEMO_MAX = 4096;

export const isPattern = (id: string) => id.includes("*");

function patternRe(id: string): RegExp {
  const body = id
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`);
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
    if (isPattern(a.id)) patterns.push({ alias: a, re: patternRe(a.id) });
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
  const hit = t.patterns.find((p) => p.re.test(id))?.alias ?? null;
  if (t.memo.size >= MEMO_MAX) t.memo.clear();
  t.memo.set(id, hit);
  return hit;
}
