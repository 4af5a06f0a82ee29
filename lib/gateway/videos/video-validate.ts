/**
 * The family rules for `POST /v1/videos` (docs/videos.md, "Submitting"; docs/design.md
 * decisions on square size and other families). Every refusal is a 400 `invalid_request`
 * naming the field; nothing is clamped or defaulted beyond what the spec says.
 *
 *   t2v (and no family): seconds "10"; size one of the four route sizes (square included)
 *   i2v / r2v:           seconds "10"; 16:9 or 9:16 at 720p/1080p; 1–2 / 1–5 images
 *   extend:              seconds omitted; one video_url; up to 5 images
 *   second:              seconds "5" | "10" | "15"; aspect_ratio (+ resolution) instead of size
 *   third:               seconds "8" (or omitted); aspect_ratio (+ resolution) instead of size
 *
 * The second and third families also take a `size` the OpenAI SDK sends (`1280x720`): it names
 * an aspect ratio and a resolution, and may not contradict `aspect_ratio` or `resolution`. Every
 * family takes `negative_prompt`, `generate_audio`, a `last_frame` image and `reference_images`;
 * what a vendor cannot honour its adapter refuses (VideoUpstream.prepare), before any hold.
 */
import type { VideoFamily, VideoJob } from "../../values";
import { errors, type ApiError } from "../errors";
import { SIZE_FRAMING } from "../upstreams/video-framing";
import { collectImages, type SubmissionFields } from "./video-submission";
import type { Result } from "../../result";

export const T2V_SIZES = ["1280x720", "1920x1080", "720x1280", "1024x1024"];
export const FIRST_FAMILY_SIZES = ["1280x720", "1920x1080", "720x1280", "1080x1920"];
export const ASPECT_RATIOS = ["16:9", "9:16", "1:1"];
export const RESOLUTIONS = ["480p", "720p", "1080p", "4k"];
/** Images beyond the first frame(s): one last frame, a few references. */
const MAX_LAST_FRAMES = 1;
const MAX_REFERENCES = 5;
export const DEFAULT_SIZE = "1280x720";
export const MAX_PROMPT_CHARS = 32_000;
/** An extend task's duration is the source video's; the hold assumes this many seconds at most. */
export const EXTEND_MAX_SECONDS = 20;

export interface ValidSubmission {
  model: string;
  job: VideoJob;
  webhook: string | null;
  webhookSecret: string | null;
}

type Validated = Result<ValidSubmission, ApiError>;

const bad = (message: string, param?: string): Validated => ({ ok: false, error: errors.invalidRequest(message, param) });

const IMAGE_LIMITS: Record<string, [number, number]> = {
  t2v: [0, 0],
  none: [0, 1],
  i2v: [1, 2],
  r2v: [1, 5],
  extend: [0, 5],
  second: [0, 1],
  third: [0, 1],
};

/** Fields checked before the model is known: the ones every family shares. */
export function checkCommonFields(sub: SubmissionFields): Result<string, ApiError> {
  const f = sub.fields;
  if ("familySlug" in f || "family_slug" in f) {
    return { ok: false, error: errors.invalidRequest("`familySlug` is not part of the public API; choose the model instead.", "familySlug") };
  }
  if (typeof f.model !== "string" || f.model === "") return { ok: false, error: errors.invalidRequest("`model` is required and must be a string.", "model") };
  return { ok: true, value: f.model };
}

export function validateSubmission(sub: SubmissionFields, family: VideoFamily | null): Validated {
  const common = checkCommonFields(sub);
  if (!common.ok) return common;
  const f = sub.fields;

  if (typeof f.prompt !== "string" || f.prompt.trim() === "") return bad("`prompt` is required and must be a non-empty string.", "prompt");
  if (f.prompt.length > MAX_PROMPT_CHARS) return bad(`\`prompt\` must be at most ${MAX_PROMPT_CHARS} characters.`, "prompt");
  // The task keeps its prompt until submission: PostgreSQL text holds neither NUL nor lone surrogates.
  if (f.prompt.includes("\u0000") || !(f.prompt as string & { isWellFormed(): boolean }).isWellFormed()) {
    return bad("`prompt` must be valid Unicode text without NUL characters.", "prompt");
  }

  const fam = family ?? "none";
  const firstFamily = fam === "t2v" || fam === "none" || fam === "i2v" || fam === "r2v" || fam === "extend";

  // Duration.
  let seconds: string | null;
  if (fam === "extend") {
    if (f.seconds !== undefined) return bad("`seconds` must be omitted for extend models: the duration is the source video's.", "seconds");
    seconds = null;
  } else if (fam === "second") {
    if (typeof f.seconds !== "string" || !["5", "10", "15"].includes(f.seconds)) {
      return bad('`seconds` must be the string "5", "10" or "15" for this model.', "seconds");
    }
    seconds = f.seconds;
  } else if (fam === "third") {
    if (f.seconds !== undefined && f.seconds !== "8") return bad('`seconds` must be the string "8" (or omitted) for this model.', "seconds");
    seconds = "8";
  } else {
    if (f.seconds !== "10") {
      return bad(
        f.seconds === undefined ? '`seconds` is required and must be the string "10".' : '`seconds` must be the string "10" (videos are 10 seconds long).',
        "seconds",
      );
    }
    seconds = "10";
  }

  // Framing.
  let size: string | null = null;
  let aspectRatio: string | null = null;
  let resolution: string | null = null;
  if (f.resolution !== undefined && (typeof f.resolution !== "string" || !RESOLUTIONS.includes(f.resolution))) {
    return bad(`\`resolution\` must be one of ${RESOLUTIONS.join(", ")}.`, "resolution");
  }
  if (firstFamily) {
    if (f.aspect_ratio !== undefined) return bad("`aspect_ratio` is not accepted by this model; use `size`.", "aspect_ratio");
    if (f.resolution !== undefined) return bad("`resolution` is not accepted by this model; use `size`.", "resolution");
    const allowed = fam === "t2v" || fam === "none" ? T2V_SIZES : FIRST_FAMILY_SIZES;
    if (f.size === undefined) size = DEFAULT_SIZE;
    else if (typeof f.size !== "string" || !allowed.includes(f.size)) return bad(`\`size\` must be one of ${allowed.join(", ")}.`, "size");
    else size = f.size;
    resolution = SIZE_FRAMING[size]?.resolution ?? null;
  } else {
    if (f.aspect_ratio !== undefined && (typeof f.aspect_ratio !== "string" || !ASPECT_RATIOS.includes(f.aspect_ratio))) {
      return bad(`\`aspect_ratio\` must be one of ${ASPECT_RATIOS.join(", ")}.`, "aspect_ratio");
    }
    aspectRatio = (f.aspect_ratio as string | undefined) ?? null;
    resolution = (f.resolution as string | undefined) ?? null;
    if (f.size !== undefined) {
      const framing = typeof f.size === "string" ? SIZE_FRAMING[f.size] : undefined;
      if (!framing) return bad(`\`size\` must be one of ${Object.keys(SIZE_FRAMING).join(", ")} (or use \`aspect_ratio\` and \`resolution\`).`, "size");
      if ((aspectRatio && aspectRatio !== framing.aspectRatio) || (resolution && framing.resolution && resolution !== framing.resolution)) {
        return bad("`size` contradicts `aspect_ratio` or `resolution`; send one framing.", "size");
      }
      aspectRatio = framing.aspectRatio;
      resolution ??= framing.resolution;
    }
    aspectRatio ??= "16:9";
  }
  let negativePrompt: string | null = null;
  if (f.negative_prompt !== undefined && f.negative_prompt !== null) {
    if (typeof f.negative_prompt !== "string" || f.negative_prompt.length > MAX_PROMPT_CHARS || !isStorableText(f.negative_prompt)) {
      return bad(`\`negative_prompt\` must be a string of at most ${MAX_PROMPT_CHARS} characters.`, "negative_prompt");
    }
    negativePrompt = f.negative_prompt;
  }
  // JSON booleans, or the strings a multipart form carries.
  const rawAudio = f.generate_audio;
  let audio: boolean | null = null;
  if (rawAudio === true || rawAudio === "true") audio = true;
  else if (rawAudio === false || rawAudio === "false") audio = false;
  else if (rawAudio !== undefined && rawAudio !== null) return bad("`generate_audio` must be true or false.", "generate_audio");

  // Inputs.
  const images = collectImages(sub);
  if (!images.ok) return images;
  const [min, max] = IMAGE_LIMITS[fam]!;
  const n = images.value.filter((i) => !i.role || i.role === "first_frame").length;
  const lastFrames = images.value.filter((i) => i.role === "last_frame").length;
  const references = images.value.filter((i) => i.role === "reference").length;
  if (lastFrames > MAX_LAST_FRAMES) return bad("`last_frame` takes one image.", "last_frame");
  if (references > MAX_REFERENCES) return bad(`\`reference_images\` takes at most ${MAX_REFERENCES} images.`, "reference_images");
  if (n < min || n > max) {
    const what = max === 0 ? "takes no image inputs" : min === max ? `takes exactly ${min} image(s)` : `takes ${min}–${max} images`;
    return bad(`This model ${what}; ${n} given.`, "images");
  }
  let videoUrl: string | null = null;
  if (fam === "extend") {
    const v = f.video_url;
    if (typeof v !== "string" || !isHttpUrl(v)) return bad("`video_url` is required for extend models and must be one http(s) URL.", "video_url");
    videoUrl = v;
  } else if (f.video_url !== undefined) {
    return bad("`video_url` is only accepted by extend models.", "video_url");
  }

  // Webhook (the address rules are checked separately: they need DNS).
  let webhook: string | null = null;
  let webhookSecret: string | null = null;
  if (f.webhook !== undefined && f.webhook !== null) {
    if (typeof f.webhook !== "string" || f.webhook.trim() === "" || !isStorableText(f.webhook)) return bad("`webhook` must be a URL string.", "webhook");
    webhook = f.webhook;
  }
  if (f.webhook_secret !== undefined && f.webhook_secret !== null) {
    if (typeof f.webhook_secret !== "string" || f.webhook_secret.length < 8 || f.webhook_secret.length > 128 || !isStorableText(f.webhook_secret)) {
      return bad("`webhook_secret` must be a string of 8 to 128 characters.", "webhook_secret");
    }
    if (!webhook) return bad("`webhook_secret` needs a `webhook` URL.", "webhook_secret");
    webhookSecret = f.webhook_secret;
  }

  return {
    ok: true,
    value: {
      model: common.value,
      job: { prompt: f.prompt, seconds, size, aspectRatio, images: images.value, videoUrl, resolution, negativePrompt, audio },
      webhook,
      webhookSecret,
    },
  };
}

/** PostgreSQL text holds neither NUL nor lone surrogates: such input is refused, never stored. */
function isStorableText(s: string): boolean {
  return !s.includes("\u0000") && (s as string & { isWellFormed(): boolean }).isWellFormed();
}

function isHttpUrl(s: string): boolean {
  if (!isStorableText(s)) return false;
  try {
    const u = new URL(s);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
}

/** Seconds a task is billed for at submission (the family maximum when unknown). */
export function heldSeconds(job: VideoJob): number {
  return job.seconds === null ? EXTEND_MAX_SECONDS : Number(job.seconds);
}
