/**
 * POST /v1/images/generations body → a normalized request, or a 400 naming the field.
 * `quality` and `size` are only read here; what they mean depends on the model's prices
 * (image-plan.ts). Unknown fields pass through and are not forwarded.
 */
import { z } from "zod";
import { errors, type ApiError } from "../errors";
import type { ImageInfo } from "./image-dimensions";
import type { Err, Result } from "../../result";

export const MAX_PROMPT_CHARS = 32_000;
export type OutputFormat = "png" | "jpeg" | "webp";

export interface ImageRequest {
  model: string;
  prompt: string;
  /** As sent; resolved against the model's price tiers later. */
  quality?: string;
  /** As sent; anything but the three listed sizes means "choose automatically". */
  size?: string;
  outputFormat?: OutputFormat;
  background?: string;
  user?: string;
  /** Server-sent events: `partialImages` (0–3) previews, then the image (docs/images.md). */
  stream?: boolean;
  partialImages?: number;
  /** POST /v1/images/edits: the images to edit (image-edit-request.ts). */
  edit?: { images: ImageFile[]; mask?: ImageFile; inputFidelity?: "high" | "low" };
}

/** An uploaded image, checked to be one. */
export interface ImageFile extends ImageInfo {
  bytes: Buffer;
  filename: string;
  /**
   * An http(s) image URL of the JSON form, downloaded only after admission (decision 0036,
   * edit-image-urls.ts): until then `bytes` is empty and the size unknown. `param` names it in a 400.
   */
  remote?: { url: string; param: string };
}

const bodySchema = z.looseObject({
  model: z.unknown().optional(),
  prompt: z.unknown().optional(),
  n: z.unknown().optional(),
  quality: z.unknown().optional(),
  size: z.unknown().optional(),
  response_format: z.unknown().optional(),
  output_format: z.unknown().optional(),
  background: z.unknown().optional(),
  stream: z.unknown().optional(),
  partial_images: z.unknown().optional(),
  user: z.unknown().optional(),
});

const present = (v: unknown) => v !== undefined && v !== null;

export function parseImageRequest(body: unknown): Result<ImageRequest, ApiError> {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) return bad("The request body must be a JSON object.");
  const b = parsed.data;
  if (typeof b.model !== "string" || b.model.length === 0) return bad("`model` is required and must be a string.", "model");
  if (typeof b.prompt !== "string" || b.prompt.trim().length === 0) return bad("`prompt` is required and must be a non-empty string.", "prompt");
  if (b.prompt.length > MAX_PROMPT_CHARS) return bad(`\`prompt\` is longer than ${MAX_PROMPT_CHARS} characters.`, "prompt");
  if (present(b.n) && b.n !== 1) return bad("`n` must be 1: one image per request (no batch generation).", "n");
  if (present(b.quality) && typeof b.quality !== "string") return bad("`quality` must be a string.", "quality");
  if (present(b.size) && typeof b.size !== "string") return bad("`size` must be a string.", "size");
  // The image always comes back inline as base64; there is no URL to give.
  if (present(b.response_format) && b.response_format !== "b64_json")
    return bad('`response_format` must be "b64_json" (images are returned as base64).', "response_format");
  if (present(b.output_format) && !["png", "jpeg", "webp"].includes(b.output_format as string))
    return bad('`output_format` must be "png", "jpeg" or "webp".', "output_format");
  if (present(b.background) && typeof b.background !== "string") return bad("`background` must be a string.", "background");
  if (present(b.stream) && typeof b.stream !== "boolean") return bad("`stream` must be a boolean.", "stream");
  if (present(b.partial_images) && (!Number.isInteger(b.partial_images) || (b.partial_images as number) < 0 || (b.partial_images as number) > 3))
    return bad("`partial_images` must be an integer from 0 to 3.", "partial_images");
  if (present(b.partial_images) && b.partial_images !== 0 && b.stream !== true) return bad("`partial_images` needs `stream: true`.", "partial_images");
  if (present(b.user) && typeof b.user !== "string") return bad("`user` must be a string.", "user");
  return {
    ok: true,
    value: {
      model: b.model,
      prompt: b.prompt,
      quality: (b.quality as string | null | undefined) ?? undefined,
      size: (b.size as string | null | undefined) ?? undefined,
      outputFormat: (b.output_format as OutputFormat | null | undefined) ?? undefined,
      background: (b.background as string | null | undefined) ?? undefined,
      user: (b.user as string | null | undefined) ?? undefined,
      stream: b.stream === true || undefined,
      partialImages: (b.partial_images as number | null | undefined) ?? undefined,
    },
  };
}

function bad(message: string, param?: string): Err<ApiError> {
  return { ok: false, error: errors.invalidRequest(message, param) };
}
