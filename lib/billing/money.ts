/** Money is integer micro-USD everywhere in code and storage; USD numbers only at the edges. */

export const MICRO_PER_USD = 1_000_000;

/** A USD amount from config, CLI or API input → micro-USD. Rejects what cannot be represented. */
export function usdToMicro(usd: number): number {
  if (!Number.isFinite(usd)) throw new RangeError(`not a finite amount: ${usd}`);
  const micro = Math.round(usd * MICRO_PER_USD);
  if (!Number.isSafeInteger(micro)) throw new RangeError(`amount out of range: ${usd}`);
  return micro;
}

/** micro-USD → a USD number for API responses (exact for every micro amount below 2^53). */
export function microToUsd(micro: number): number {
  return micro / MICRO_PER_USD;
}

/** "0.000123" style, trailing zeros trimmed but at least two decimals: for headers and CLI output. */
export function formatUsd(micro: number): string {
  const sign = micro < 0 ? "-" : "";
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / MICRO_PER_USD);
  const frac = String(abs % MICRO_PER_USD).padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${sign}${whole}.${frac}`;
}

/**
 * Exact token charge: tokens × (micro-USD per million tokens), rounded up to a whole micro-USD.
 * BigInt keeps the product exact whatever the magnitudes.
 */
export function tokenCostMicro(tokens: number, microPerMTok: number): number {
  if (tokens <= 0 || microPerMTok <= 0) return 0;
  const product = BigInt(Math.ceil(tokens)) * BigInt(Math.ceil(microPerMTok));
  const q = product / 1_000_000n;
  return Number(product % 1_000_000n === 0n ? q : q + 1n);
}

/** Parses a user-typed USD amount ("10", "0.25") into micro-USD, or null when it is not one. */
export function parseUsd(text: string): number | null {
  if (!/^\d+(\.\d{1,6})?$/.test(text.trim())) return null;
  const [w, f = ""] = text.trim().split(".");
  const micro = Number(w) * MICRO_PER_USD + Number(f.padEnd(6, "0"));
  return Number.isSafeInteger(micro) ? micro : null;
}
