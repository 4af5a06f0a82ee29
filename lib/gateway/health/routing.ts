/**
 * The order in which a request tries a model's entries: by `priority` tier (lower first), and
 * within a tier at random in proportion to `weight` (weighted sampling without replacement,
 * Efraimidis–Spirakis: key = −ln(U) / weight, smallest first). Weight 0 = only after the rest
 * of its tier, in the caller's order. Entries of one tier with equal weights share the load evenly.
 */
export interface Routable {
  modelId: string;
  upstream: { id: string };
  /** Tier: lower is tried first (absent on every entry = the caller's order). */
  priority?: number;
  /** Share within the tier (0 = standby; absent = 1). */
  weight?: number;
}

export const tierOf = (e: Routable): number => e.priority ?? 0;
export const weightOf = (e: Routable): number => e.weight ?? 1;

export function weightedOrder<R extends Routable>(entries: readonly R[], random: () => number = Math.random): R[] {
  const n = entries.length;
  // Fast path (the default: each entry its own tier, in file order; or no tiers given at all,
  // as in hand-built routes: the caller's order): nothing to draw.
  let ascending = true;
  let unset = true;
  for (let i = 0; i < n; i++) if (entries[i]!.priority !== undefined) unset = false;
  for (let i = 1; i < n && ascending; i++) ascending = tierOf(entries[i]!) > tierOf(entries[i - 1]!);
  if (unset) ascending = true;
  if (ascending) return entries.slice();
  const keys = new Array<number>(n);
  const idx = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const w = weightOf(entries[i]!);
    keys[i] = w > 0 ? -Math.log(1 - random()) / w : Infinity;
    idx[i] = i;
  }
  // Insertion sort: a model has a handful of entries.
  for (let i = 1; i < n; i++) {
    const cur = idx[i]!;
    let j = i - 1;
    while (j >= 0 && before(entries, keys, cur, idx[j]!)) {
      idx[j + 1] = idx[j]!;
      j--;
    }
    idx[j + 1] = cur;
  }
  return idx.map((i) => entries[i]!);
}

/** Is entry a ordered before entry b: lower tier, then smaller key, then the caller's order. */
function before(entries: readonly Routable[], keys: number[], a: number, b: number): boolean {
  const ta = tierOf(entries[a]!);
  const tb = tierOf(entries[b]!);
  if (ta !== tb) return ta < tb;
  if (keys[a] !== keys[b]) return keys[a]! < keys[b]!;
  return a < b;
}

/** `model@upstream`: neither id may contain "@" (config slugs), so the key is unambiguous. */
export function entryKey(e: { modelId: string; upstream: { id: string } }): string {
  return `${e.modelId}@${e.upstream.id}`;
}

export function splitKey(key: string): { modelId: string; upstreamId: string } {
  const i = key.lastIndexOf("@");
  return { modelId: key.slice(0, i), upstreamId: key.slice(i + 1) };
}
