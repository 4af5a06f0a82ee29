/**
 * Reads the format and pixel size of an image from its bytes (PNG, JPEG, WebP), to check an
 * upstream really returned an image and to learn the size it produced when it does not say.
 * The header parsing is `image-size`'s (docs/decisions/0012-s3-through-the-aws-sdk.md); we keep
 * only the three formats the image API promises.
 */
import { imageSize } from "image-size";

export type ImageFormat = "png" | "jpeg" | "webp";

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

const FORMATS: Record<string, ImageFormat> = { png: "png", jpg: "jpeg", webp: "webp" };

export function sniffImage(bytes: Uint8Array): ImageInfo | null {
  let info: ReturnType<typeof imageSize>;
  try {
    info = imageSize(bytes);
  } catch {
    return null; // not an image, or one it cannot read
  }
  const format = info.type ? FORMATS[info.type] : undefined;
  if (!format || !info.width || !info.height) return null;
  return { format, width: info.width, height: info.height };
}
