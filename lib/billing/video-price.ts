/** What a video task holds at submission and what it finally costs, in integer micro-USD. */
import type { ModelPrice } from "../values";

/** perVideo is a fixed price; perSecond is priced on the duration. */
export function holdMicroUsd(price: ModelPrice, seconds: number): number {
  if (typeof price.perVideo === "number") return Math.max(0, Math.ceil(price.perVideo));
  if (typeof price.perSecond === "number") return Math.max(0, Math.ceil(price.perSecond * seconds));
  return 0;
}

/**
 * The settled cost: the hold for fixed prices; for duration prices the real duration the
 * upstream reports (never more than the hold, which was the worst case).
 */
export function finalCostMicroUsd(price: ModelPrice, held: number, reportedSeconds: string | null): number {
  if (typeof price.perVideo === "number" || typeof price.perSecond !== "number") return held;
  const s = reportedSeconds === null ? NaN : Number(reportedSeconds);
  if (!Number.isFinite(s) || s <= 0) return held;
  return Math.min(held, Math.ceil(price.perSecond * s));
}
