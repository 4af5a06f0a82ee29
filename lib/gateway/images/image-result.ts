import type { ImageFormat } from "./image-dimensions";

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
}
