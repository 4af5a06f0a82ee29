/** The public image result: the spec's `created` and `data[0].b64_json`, plus OpenAI's descriptive fields. */
import type { ImageResult } from "../media/image-result";

export interface ImageResultBody {
  created: number;
  data: Array<{ b64_json: string }>;
  output_format: string;
  size: string;
  quality?: string;
}

export function imageResultBody(result: ImageResult, producedSize: string | null, quality: string | null): ImageResultBody {
  const body: ImageResultBody = {
    created: Math.floor(Date.now() / 1000),
    data: [{ b64_json: result.b64 }],
    output_format: result.format,
    size: producedSize ?? `${result.width}x${result.height}`,
  };
  if (quality !== null) body.quality = quality;
  return body;
}
