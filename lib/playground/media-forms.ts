/**
 * Image and video form logic shared with the gateway, so the browser shows the price the
 * gateway will hold and refuses what the gateway would refuse, before anything is sent.
 * Prices are the catalog's integer micro-USD.
 */
import type { ModelPrice, VideoFamily } from "../values";
import { IMAGE_SIZES } from "../gateway/images/image-size";
import { planImage, qualityTiers } from "../gateway/images/image-plan";
import { holdMicroUsd } from "../billing/video-price";
import { ASPECT_RATIOS, EXTEND_MAX_SECONDS, FIRST_FAMILY_SIZES, T2V_SIZES, validateSubmission } from "../gateway/videos/video-validate";

export interface ImageChoices {
  /** Empty for flat-priced models (no quality tiers). */
  qualities: string[];
  sizes: string[];
}

/** What the form offers for a model: its quality tiers and the sizes priced at `quality`. */
export function imageChoices(price: ModelPrice, quality: string | null): ImageChoices {
  const qualities = qualityTiers(price);
  const plan = planImage(price, { quality: quality ?? undefined });
  return { qualities, sizes: plan.ok ? plan.value.sizes : [...IMAGE_SIZES] };
}

/** The most the gateway holds (and charges) for this combination; "auto" is the priciest size. */
export function imagePrice(price: ModelPrice, quality: string | null, size: string): { ok: true; microUsd: number } | { ok: false; message: string } {
  const plan = planImage(price, { quality: quality ?? undefined, size });
  return plan.ok ? { ok: true, microUsd: plan.value.holdMicroUsd } : { ok: false, message: plan.error.message };
}

export interface VideoForm {
  model: string;
  family: VideoFamily | null;
  prompt: string;
  /** First family. */
  size: string;
  /** Second and third families. */
  aspectRatio: string;
  seconds: string;
  /** One URL per line (i2v, r2v, extend). */
  imageUrls: string;
  videoUrl: string;
  webhook: string;
}

/** Which fields a family's form shows, and the choices each offers (the spec's family table). */
export function videoFields(family: VideoFamily | null) {
  const fam = family ?? "none";
  const firstFamily = fam === "t2v" || fam === "none" || fam === "i2v" || fam === "r2v" || fam === "extend";
  return {
    sizes: firstFamily ? (fam === "t2v" || fam === "none" ? T2V_SIZES : FIRST_FAMILY_SIZES) : null,
    aspectRatios: firstFamily ? null : ASPECT_RATIOS,
    seconds: fam === "extend" ? null : fam === "second" ? ["5", "10", "15"] : fam === "third" ? ["8"] : ["10"],
    images: fam === "i2v" ? "1–2 image URLs" : fam === "r2v" ? "1–5 image URLs" : fam === "extend" ? "up to 5 image URLs" : fam === "t2v" ? null : "at most 1 image URL",
    videoUrl: fam === "extend",
  };
}

/** The JSON body for POST /v1/videos. */
export function videoBody(f: VideoForm): Record<string, unknown> {
  const show = videoFields(f.family);
  const body: Record<string, unknown> = { model: f.model, prompt: f.prompt };
  if (show.seconds) body.seconds = f.seconds || show.seconds[0];
  if (show.sizes) body.size = f.size || show.sizes[0];
  if (show.aspectRatios) body.aspect_ratio = f.aspectRatio || show.aspectRatios[0];
  const urls = f.imageUrls.split(/\s+/).filter(Boolean);
  if (show.images && urls.length) body.images = urls;
  if (show.videoUrl) body.video_url = f.videoUrl.trim();
  if (f.webhook.trim()) body.webhook = f.webhook.trim();
  return body;
}

/** The gateway's own family rules, run in the form: null or the field and message to show. */
export function checkVideoForm(f: VideoForm): { field: string; message: string } | null {
  if (f.webhook.trim()) {
    try {
      const u = new URL(f.webhook.trim());
      if (u.protocol !== "https:" && u.protocol !== "http:") return { field: "webhook", message: "The webhook must be an http(s) URL." };
    } catch {
      return { field: "webhook", message: "The webhook must be a full URL, like https://example.com/hooks/video." };
    }
  }
  const r = validateSubmission({ fields: videoBody(f), files: {} }, f.family);
  if (r.ok) return null;
  const field = r.error.param === "images" || r.error.param === "input_reference" ? "imageUrls" : r.error.param === "aspect_ratio" ? "aspectRatio" : r.error.param === "video_url" ? "videoUrl" : (r.error.param ?? "prompt");
  return { field, message: r.error.message.replace(/`/g, "") };
}

/** The price a video task holds at submission (refunded if it fails). */
export function videoPrice(price: ModelPrice, family: VideoFamily | null, seconds: string): number {
  const s = family === "extend" ? EXTEND_MAX_SECONDS : Number(seconds || (family === "second" ? "5" : family === "third" ? "8" : "10"));
  return holdMicroUsd(price, s);
}
