/**
 * Images billed from the vendor's usage (docs/images.md): GPT image models and Gemini image
 * models report tokens by class; a model priced with `imageOutputPerMTok` is charged each class
 * at its price. `perImage` still fixes the quality and size tiers and the worst case one image
 * is held at; the prompt's text tokens are held at their byte bound on top.
 */
import type { ModelPrice } from "../../values";

export interface ImageUsage {
  textInputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
  /** Text the model wrote besides the image (gpt-image-2 reasoning, Gemini's caption). */
  textOutputTokens: number;
}

/** Instructions a vendor wraps around the prompt, counted as text input. */
const PROMPT_TOKENS_FLOOR = 256;

export const tokenPriced = (price: ModelPrice): boolean => price.imageOutputPerMTok !== undefined;

const big = (n: number | undefined) => BigInt(Math.max(0, Math.ceil(n ?? 0)));

/** The cost of these token classes in micro-USD, rounded up once. */
export function imageTokenCostMicro(u: ImageUsage, price: ModelPrice): number {
  const total =
    big(u.textInputTokens) * big(price.inputPerMTok) +
    big(u.imageInputTokens) * big(price.imageInputPerMTok ?? price.inputPerMTok) +
    big(u.imageOutputTokens) * big(price.imageOutputPerMTok) +
    big(u.textOutputTokens) * big(price.outputPerMTok ?? price.imageOutputPerMTok);
  const q = total / 1_000_000n;
  return Number(total % 1_000_000n === 0n ? q : q + 1n);
}

/** What the prompt can cost at most: its bytes (no token is shorter than a byte) plus the vendor's wrapping. The playground shows the same figure (no Buffer: it runs in the browser too). */
export function promptHoldMicro(price: ModelPrice, prompt: string, inputImageBytes = 0): number {
  if (!tokenPriced(price)) return 0;
  // An input image is held at one token per 32 bytes: far above any vendor's rate.
  return imageTokenCostMicro(
    { textInputTokens: new TextEncoder().encode(prompt).length + PROMPT_TOKENS_FLOOR, imageInputTokens: Math.ceil(inputImageBytes / 32), imageOutputTokens: 0, textOutputTokens: 0 },
    price,
  );
}

/** OpenAI's `usage` (Images API response, `image_generation.completed`), or null when absent or malformed. */
export function openaiImageUsage(raw: unknown): ImageUsage | null {
  const u = raw as {
    input_tokens?: unknown;
    output_tokens?: unknown;
    input_tokens_details?: { text_tokens?: unknown; image_tokens?: unknown };
    output_tokens_details?: { text_tokens?: unknown; image_tokens?: unknown };
  } | null;
  const n = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);
  const input = n(u?.input_tokens);
  const output = n(u?.output_tokens);
  if (input === null || output === null) return null;
  const imageIn = n(u?.input_tokens_details?.image_tokens) ?? 0;
  const textOut = n(u?.output_tokens_details?.text_tokens) ?? 0;
  return {
    textInputTokens: n(u?.input_tokens_details?.text_tokens) ?? Math.max(0, input - imageIn),
    imageInputTokens: imageIn,
    imageOutputTokens: n(u?.output_tokens_details?.image_tokens) ?? Math.max(0, output - textOut),
    textOutputTokens: textOut,
  };
}
