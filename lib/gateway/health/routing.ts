/**
 * The order in which a request tries a model's entries: by `priority` tier (lower first), and
 * within a tier at random in proportion to `weight` (weighted sampling without replacement,
 * Efraimidis–Spirakis: key = −ln(U) / weight, smallest first). Weight 0 = only after the rest
 * of its tier, in the caller's order. Entries of one tier with equal weights share the load evenly.
 */
export interface Routable {
  modelId: string;
  upstream: { id: string };
  /** Tier: lower is tried first. */
  priority: number;
  /** Share within the tier (0 = standby). */
  weight: number;
}

export function weightedOrder<R extends Routable>(entries: readonly R[], random: () => number = Math.random): R[] {
  if (entries.length < 2) return entries.slice();
  const keyed = entries.map((entry, i) => ({ entry, i, key: entry.weight > 0 ? -Math.log(1 - random()) / entry.weight : Infinity }));
  keyed.sort((a, b) => a.entry.priority - b.entry.priority || a.key - b.key || a.i - b.i);
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
