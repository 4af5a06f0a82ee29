import type { ImageFormat } from "./image-dimensions";
import type { ImageUsage } from "./image-usage";

/** What an image adapter returns: one image, checked to be a real image file. */
export interface ImageResult {
  /** Base64 of the image file's bytes. */
  b64: string;
  format: ImageFormat;
  /** Pixel size read from the image itself. */
  width: number;
  height: number;
  /** The `size` the upstream said it produced, when it said one (`1536x1024`). */
  reportedSize?: string;
  /** The tokens the vendor reported, by class (GPT and Gemini image models). */
  usage?: ImageUsage;
}

/**
 * A streamed generation (`stream: true`): the upstream's partial images as it sends them (in
 * OpenAI's wire form, relayed as they are), then the image. Throws UpstreamStreamError when it breaks.
 */
export type ImageStreamEvent = { type: "partial"; raw: Record<string, unknown> } | { type: "completed"; raw: Record<string, unknown>; image: ImageResult };

export interface ImageStream {
  events: AsyncIterable<ImageStreamEvent>;
}
