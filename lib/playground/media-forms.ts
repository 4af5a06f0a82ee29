/**
 * Image and video form logic shared with the gateway, so the browser shows the price the
 * gateway will hold and refuses what the gateway would refuse, before anything is sent.
 * Prices are the catalog's integer micro-USD.
 */
import type { ModelPrice, VideoFamily } from "../values";
import type { Result } from "../result";
import { IMAGE_SIZES } from "../gateway/media/image-size";
import { planImage, qualityTiers } from "../gateway/media/image-plan";
import { promptHoldMicro, tokenPriced } from "../gateway/media/image-usage";
import { EDIT_BODY_LIMIT, MAX_EDIT_IMAGE_BYTES, MAX_EDIT_IMAGES, MAX_MASK_BYTES } from "../gateway/media/edit-limits";
import { holdMicroUsd, pricedResolutions, videoPriceProblem } from "../billing/video-price";
import { ASPECT_RATIOS, EXTEND_MAX_SECONDS, FIRST_FAMILY_SIZES, heldSeconds, RESOLUTIONS, T2V_SIZES, validateSubmission } from "../gateway/videos/video-validate";

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

/**
 * The most the gateway holds (and charges) for this combination; "auto" is the priciest size. A
 * token-priced model adds the prompt's bound and, for an edit, the uploaded images' and mask's
 * (`inputBytes`, as the gateway's hold counts them), computed by the gateway's own functions.
 */
export function imagePrice(price: ModelPrice, quality: string | null, size: string, prompt = "", inputBytes = 0): Result<number, string> {
  const plan = planImage(price, { quality: quality ?? undefined, size });
  return plan.ok ? { ok: true, value: plan.value.holdMicroUsd + promptHoldMicro(price, prompt, inputBytes) } : { ok: false, error: plan.error.message };
}

/** Whether the model's hold grows with the prompt and an edit's uploads. */
export { tokenPriced };

/** The file types an edit takes (the gateway sniffs the bytes; the browser's type is the first check). */
export const EDIT_IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;

interface PickedFile {
  name: string;
  size: number;
  type: string;
}

/**
 * The gateway's upload limits for an edit, checked as files are picked: the message for images
 * that would be refused (too many, too large, not PNG/JPEG/WebP, more in all than the route's
 * body limit with the mask's `maskBytes`), or null.
 */
export function checkEditImages(files: readonly PickedFile[], maskBytes = 0): string | null {
  if (files.length > MAX_EDIT_IMAGES) return `At most ${MAX_EDIT_IMAGES} images can be edited at once; you picked ${files.length}.`;
  for (const f of files) {
    if (!(EDIT_IMAGE_TYPES as readonly string[]).includes(f.type)) return `${f.name} is not a PNG, JPEG or WebP image.`;
    if (f.size > MAX_EDIT_IMAGE_BYTES) return `${f.name} is ${mb(f.size)}; each image may be at most ${mb(MAX_EDIT_IMAGE_BYTES)}.`;
  }
  return tooMuch(files.reduce((n, f) => n + f.size, maskBytes));
}

/** The mask: a PNG (its transparent pixels are what to change) of at most 4 MB; its size the gateway checks against the first image. */
export function checkEditMask(file: PickedFile, imageBytes = 0): string | null {
  if (file.type !== "image/png") return `The mask must be a PNG with an alpha channel; ${file.name} is not a PNG.`;
  if (file.size > MAX_MASK_BYTES) return `The mask is ${mb(file.size)}; it may be at most ${mb(MAX_MASK_BYTES)}.`;
  return tooMuch(imageBytes + file.size);
}

const tooMuch = (total: number) => (total > EDIT_BODY_LIMIT ? `Together the files are ${mb(total)}; one edit may upload at most ${mb(EDIT_BODY_LIMIT)}.` : null);

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** The image fields every OpenAI-protocol image model takes (docs/images.md); the gateway names what a vendor refuses. */
export const IMAGE_BACKGROUNDS = ["auto", "opaque", "transparent"] as const;
export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;

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
  /** Second and third families: `720p`, `1080p`… ("" = the model's default). */
  resolution?: string;
  /** "" = the model's default, "on" / "off" = `generate_audio`. */
  audio?: string;
  negativePrompt?: string;
  /** The clip's last frame, an image URL (image-to-video). */
  lastFrameUrl?: string;
}

/**
 * Which fields a family's form shows, and the choices each offers (the spec's family table); the
 * model's price says which resolutions it is sold at and whether sound changes the price.
 */
export function videoFields(family: VideoFamily | null, price: ModelPrice = {}) {
  const fam = family ?? "none";
  const firstFamily = fam === "t2v" || fam === "none" || fam === "i2v" || fam === "r2v" || fam === "extend";
  const priced = pricedResolutions(price);
  const table = price.perSecond && typeof price.perSecond === "object" ? Object.keys(price.perSecond) : [];
  return {
    /** Resolutions go with an aspect ratio (a size already says its own). */
    resolutions: firstFamily ? null : priced.length ? priced : RESOLUTIONS,
    /** Sound on or off, where the price tells them apart. */
    audio: table.some((k) => k.endsWith(":audio")),
    negativePrompt: true,
    /** A last frame goes with a first frame (image-to-video). */
    lastFrame: fam === "none" || fam === "i2v" || fam === "second" || fam === "third",
    sizes: firstFamily ? (fam === "t2v" || fam === "none" ? T2V_SIZES : FIRST_FAMILY_SIZES) : null,
    aspectRatios: firstFamily ? null : ASPECT_RATIOS,
    seconds: fam === "extend" ? null : fam === "second" ? ["5", "10", "15"] : fam === "third" ? ["8"] : ["10"],
    images: fam === "i2v" ? "1–2 image URLs" : fam === "r2v" ? "1–5 image URLs" : fam === "extend" ? "up to 5 image URLs" : fam === "t2v" ? null : "at most 1 image URL",
    videoUrl: fam === "extend",
  };
}

/** The JSON body for POST /v1/videos. */
export function videoBody(f: VideoForm, price: ModelPrice = {}): Record<string, unknown> {
  const show = videoFields(f.family, price);
  const body: Record<string, unknown> = { model: f.model, prompt: f.prompt };
  if (show.seconds) body.seconds = f.seconds || show.seconds[0];
  if (show.sizes) body.size = f.size || show.sizes[0];
  if (show.aspectRatios) body.aspect_ratio = f.aspectRatio || show.aspectRatios[0];
  const urls = f.imageUrls.split(/\s+/).filter(Boolean);
  if (show.images && urls.length) body.images = urls;
  if (show.videoUrl) body.video_url = f.videoUrl.trim();
  if (show.resolutions && f.resolution) body.resolution = f.resolution;
  if (show.audio && f.audio) body.generate_audio = f.audio === "on";
  if (f.negativePrompt?.trim()) body.negative_prompt = f.negativePrompt.trim();
  if (show.lastFrame && f.lastFrameUrl?.trim()) body.last_frame = f.lastFrameUrl.trim();
  if (f.webhook.trim()) body.webhook = f.webhook.trim();
  return body;
}

/** The gateway's own family rules, run in the form: null or the field and message to show. */
export function checkVideoForm(f: VideoForm, price: ModelPrice = {}): { field: string; message: string } | null {
  if (f.webhook.trim()) {
    try {
      const u = new URL(f.webhook.trim());
      if (u.protocol !== "https:" && u.protocol !== "http:") return { field: "webhook", message: "The webhook must be an http(s) URL." };
    } catch {
      return { field: "webhook", message: "The webhook must be a full URL, like https://example.com/hooks/video." };
    }
  }
  const r = validateSubmission({ fields: videoBody(f, price), files: {} }, f.family);
  if (r.ok) return null;
  const names: Record<string, string> = { images: "imageUrls", input_reference: "imageUrls", aspect_ratio: "aspectRatio", video_url: "videoUrl", negative_prompt: "negativePrompt", last_frame: "lastFrameUrl", generate_audio: "audio" };
  const field = names[r.error.param ?? ""] ?? r.error.param ?? "prompt";
  return { field, message: r.error.message.replace(/`/g, "") };
}

/**
 * The price a video task holds at submission (refunded if it fails), as the gateway computes it:
 * the form's body through the gateway's validation, then its hold function on the job (the
 * resolution asked, or the size's; the sound asked). Null while the form would be refused.
 */
export function videoPrice(price: ModelPrice, f: VideoForm): number | null {
  // The prompt does not change the price: a placeholder lets the price show before it is typed.
  const r = validateSubmission({ fields: videoBody({ ...f, prompt: f.prompt.trim() || "price", webhook: "" }, price), files: {} }, f.family);
  if (!r.ok || videoPriceProblem(price, r.value.job)) return null;
  return holdMicroUsd(price, heldSeconds(r.value.job), r.value.job);
}

/** What a listed task held, from its model and seconds alone (the dearest resolution when the price is keyed by one). */
export function taskHoldMicro(price: ModelPrice, family: VideoFamily | null, seconds: string): number {
  const s = family === "extend" ? EXTEND_MAX_SECONDS : Number(seconds || (family === "second" ? "5" : family === "third" ? "8" : "10"));
  return holdMicroUsd(price, s);
}
