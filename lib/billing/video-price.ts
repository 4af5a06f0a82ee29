/**
 * What a video task holds at submission and what it finally costs, in integer micro-USD.
 *
 * `perVideo` is a fixed price. `perSecond` is per second of video: one amount, or a table keyed
 * by resolution (`720p`, `1080p`), with a `:audio` suffix where sound changes the price
 * (decision 0065). The hold is the request's worst case; the charge is what the upstream
 * actually produced (its duration and resolution), never more than the hold.
 */
import type { ModelPrice } from "../values";

/** What a task asks for or what the upstream made: resolution and sound (null = unknown / the default). */
export interface VideoRendition {
  resolution?: string | null;
  audio?: boolean | null;
}

/**
 * The `perSecond` keys a rendition may be priced at, one per resolution (every priced one when
 * the resolution is unknown). Sound unsaid is the model's default: with sound where that is priced.
 */
function candidateKeys(table: Record<string, number>, r: VideoRendition): string[] {
  const resolutions = r.resolution ? [r.resolution] : pricedResolutions({ perSecond: table });
  const out: string[] = [];
  for (const res of resolutions) {
    const key = r.audio === true ? `${res}:audio` : r.audio === false ? res : `${res}:audio` in table ? `${res}:audio` : res;
    if (key in table) out.push(key);
  }
  return out;
}

/**
 * The price of one second of `r`, and the key it was read from (null for a flat price); null when
 * the table has no price for it. An unknown resolution is priced at the table's dearest.
 */
export function perSecondRate(price: ModelPrice, r: VideoRendition): { rate: number; key: string | null } | null {
  const p = price.perSecond;
  if (typeof p === "number") return { rate: p, key: null };
  if (!p) return null;
  let best: { rate: number; key: string } | null = null;
  for (const key of candidateKeys(p, r)) if (!best || p[key]! > best.rate) best = { rate: p[key]!, key };
  return best;
}

/** The resolutions a `perSecond` table prices (empty for a flat price). */
export function pricedResolutions(price: ModelPrice): string[] {
  const p = price.perSecond;
  return p && typeof p === "object" ? [...new Set(Object.keys(p).map((k) => k.replace(/:audio$/, "")))] : [];
}

/** The hold: the fixed price, or `seconds` at the rendition's rate; 0 when unpriced (refused before, see videoPriceProblem). */
export function holdMicroUsd(price: ModelPrice, seconds: number, r: VideoRendition = {}): number {
  if (typeof price.perVideo === "number") return Math.max(0, Math.ceil(price.perVideo));
  const rate = perSecondRate(price, r);
  return rate ? Math.max(0, Math.ceil(rate.rate * seconds)) : 0;
}

/** Why a request cannot be priced (a table without its resolution or sound), naming the field; null when it can. */
export function videoPriceProblem(price: ModelPrice, r: VideoRendition): { param: string; message: string } | null {
  if (typeof price.perVideo === "number" || typeof price.perSecond === "number") return null;
  if (perSecondRate(price, r)) return null;
  if (r.resolution && !pricedResolutions(price).includes(r.resolution)) {
    return { param: "resolution", message: `\`resolution\` must be one of ${pricedResolutions(price).join(", ")} for this model.` };
  }
  return { param: "generate_audio", message: `This model has no price for ${r.audio ? "video with sound" : "silent video"}${r.resolution ? ` at ${r.resolution}` : ""}.` };
}

export interface FinalCost {
  costMicroUsd: number;
  /** The price key charged (`720p`, `1080p:audio`), when the table is keyed. */
  pricedAs: string | null;
}

/**
 * The settled cost: the hold for fixed prices; for duration prices what the upstream reports
 * having produced (its seconds, its resolution, else what was asked), never more than the hold.
 */
export function finalCost(price: ModelPrice, held: number, produced: { seconds: string | null } & VideoRendition, asked: VideoRendition = {}): FinalCost {
  if (typeof price.perVideo === "number" || price.perSecond === undefined) return { costMicroUsd: held, pricedAs: null };
  const rate = perSecondRate(price, { resolution: produced.resolution ?? asked.resolution, audio: produced.audio ?? asked.audio });
  const s = produced.seconds === null ? NaN : Number(produced.seconds);
  if (!rate || !Number.isFinite(s) || s <= 0) return { costMicroUsd: held, pricedAs: rate?.key ?? null };
  return { costMicroUsd: Math.min(held, Math.ceil(rate.rate * s)), pricedAs: rate.key };
}

/** The settled cost as a number (see finalCost). */
export function finalCostMicroUsd(price: ModelPrice, held: number, reportedSeconds: string | null): number {
  return finalCost(price, held, { seconds: reportedSeconds }).costMicroUsd;
}
