/**
 * The public embedding list. `model` is always the id the client asked for (never the
 * upstream's name), so vectors from different models cannot be confused in one index.
 */
import { encodeFloat32Base64 } from "../media/float32-base64";
import type { EncodingFormat } from "../media/embedding-request";

export interface EmbeddingList {
  object: "list";
  data: Array<{ object: "embedding"; index: number; embedding: number[] | string }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

export function embeddingList(
  model: string,
  vectors: Array<ArrayLike<number>>,
  format: EncodingFormat,
  promptTokens: number,
): EmbeddingList {
  return {
    object: "list",
    data: vectors.map((v, index) => ({
      object: "embedding",
      index,
      // float: the float32 values as JSON numbers, as OpenAI sends them.
      embedding: format === "base64" ? encodeFloat32Base64(v) : Array.from(v),
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
