/**
 * Image pricing (docs/design.md, "Image pricing"): prices are per-model data in integer micro-USD,
 * keyed `quality:size` (`high:1536x1024`), `quality:*` (one price for every size of a quality),
 * `*:size` (priced by size only) or `*` (flat). A model whose keys name no quality has no tiers
 * and ignores `quality`. Before the upstream
 * call the plan fixes the quality, the size to ask for and the hold; after it, the charge is
 * the price of the size actually produced, never above the hold.
 */
import type { ModelPrice } from "../../values";
import { errors, type ApiError } from "../errors";
import { IMAGE_SIZES, chooseAutoSize, isImageSize, nearestImageSize, parseSize, type ImageSize } from "./image-size";
import type { Result } from "../../result";

export const DEFAULT_QUALITY = "medium";

export interface ImagePlan {
  /** null for a flat-priced model (no quality tiers). */
  quality: string | null;
  /** The size the client asked for, or "auto" when it sent none or another value. */
  requestedSize: ImageSize | "auto";
  /** The listed sizes this quality is priced for: what "auto" may produce. */
  sizes: ImageSize[];
  /** The worst case: the price of the requested size, or the highest among `sizes` for auto. */
  holdMicroUsd: number;
}

/** The quality tiers a price table names (`low`, `medium`, `high`), in table order. */
export function qualityTiers(price: ModelPrice): string[] {
  const tiers: string[] = [];
  for (const key of Object.keys(price.perImage ?? {})) {
    const i = key.indexOf(":");
    const tier = key.slice(0, i);
    if (i > 0 && tier !== "*" && !tiers.includes(tier)) tiers.push(tier);
  }
  return tiers;
}

/** The price of one image of `quality` at `size`, or null when the table has none. */
export function imagePriceMicro(price: ModelPrice, quality: string | null, size: ImageSize): number | null {
  const table = price.perImage ?? {};
  if (quality !== null) {
    if (table[`${quality}:${size}`] !== undefined) return table[`${quality}:${size}`]!;
    if (table[`${quality}:*`] !== undefined) return table[`${quality}:*`]!;
  }
  return table[`*:${size}`] ?? table["*"] ?? null;
}

export function planImage(
  price: ModelPrice,
  req: { quality?: string; size?: string },
): Result<ImagePlan, ApiError> {
  const tiers = qualityTiers(price);
  let quality: string | null = null;
  if (tiers.length > 0) {
    const asked = req.quality === undefined || req.quality === "auto" ? undefined : req.quality;
    quality = asked ?? (tiers.includes(DEFAULT_QUALITY) ? DEFAULT_QUALITY : tiers[0]!);
    if (!tiers.includes(quality))
      return { ok: false, error: errors.invalidRequest(`\`quality\` must be one of ${tiers.join(", ")} for this model.`, "quality") };
  }
  const sizes = IMAGE_SIZES.filter((s) => imagePriceMicro(price, quality, s) !== null);
  if (sizes.length === 0) {
    // A table with no entry for this quality at all cannot be charged: a configuration gap.
    return { ok: false, error: errors.invalidRequest(`This model has no price for quality "${quality}".`, "quality") };
  }
  if (isImageSize(req.size)) {
    const p = imagePriceMicro(price, quality, req.size);
    if (p === null)
      return {
        ok: false,
        error: errors.invalidRequest(
          `\`size\` ${req.size} is not offered at quality "${quality}" for this model; offered: ${sizes.join(", ")}.`,
          "size",
        ),
      };
    return { ok: true, value: { quality, requestedSize: req.size, sizes: [req.size], holdMicroUsd: p } };
  }
  const hold = Math.max(...sizes.map((s) => imagePriceMicro(price, quality, s)!));
  return { ok: true, value: { quality, requestedSize: "auto", sizes, holdMicroUsd: hold } };
}

/** The size to ask the gateway's own renderer for when the plan says auto. */
export function autoSize(plan: ImagePlan, prompt: string): ImageSize {
  return plan.requestedSize === "auto" ? chooseAutoSize(prompt, plan.sizes) : plan.requestedSize;
}

/**
 * The charge for what was produced. A produced size outside the listed three is priced as the
 * listed size of the nearest aspect ratio; one the table does not price costs the hold.
 */
export function imageChargeMicro(price: ModelPrice, plan: ImagePlan, produced: { width: number; height: number } | string | null): {
  costMicroUsd: number;
  size: ImageSize | null;
} {
  const dims = typeof produced === "string" ? parseSize(produced) : produced ? [produced.width, produced.height] : null;
  if (!dims) return { costMicroUsd: plan.holdMicroUsd, size: null };
  const size = nearestImageSize(dims[0], dims[1]);
  const p = imagePriceMicro(price, plan.quality, size);
  return { costMicroUsd: Math.min(p ?? plan.holdMicroUsd, plan.holdMicroUsd), size };
}
