/**
 * The order in which a request tries a model's entries: by `priority` tier (lower first), and
 * within a tier at random in proportion to `weight` (weighted sampling without replacement,
 * Efraimidis–Spirakis: key = −ln(U) / weight, smallest first). Weight 0 = only after the rest
 * of its tier, in the caller's order. Entries of one tier with equal weights share the load evenly.
 */
export interface Routable {
  modelId: string;
  upstream: { id: string };
  /** Tier: lower is tried first (absent = 0). */
  priority?: number;
  /** Share within the tier (0 = standby; absent = 1). */
  weight?: number;
}

export const tierOf = (e: Routable): number => e.priority ?? 0;
export const weightOf = (e: Routable): number => e.weight ?? 1;

export function weightedOrder<R extends Routable>(entries: readonly R[], random: () => number = Math.random): R[] {
  if (entries.length < 2) return entries.slice();
  const keyed = entries.map((entry, i) => {
    const w = weightOf(entry);
    return { entry, i, tier: tierOf(entry), key: w > 0 ? -Math.log(1 - random()) / w : Infinity };
  });
  keyed.sort((a, b) => a.tier - b.tier || a.key - b.key || a.i - b.i);
  return keyed.map((k) => k.entry);
}

/** `model@upstream`: neither id may contain "@" (config slugs), so the key is unambiguous. */
export function entryKey(e: { modelId: string; upstream: { id: string } }): string {
  return `${e.modelId}@${e.upstream.id}`;
}

export function splitKey(key: string): { modelId: string; upstreamId: string } {
  const i = key.lastIndexOf("@");
  return { modelId: key.slice(0, i), upstreamId: key.slice(i + 1) };
}
