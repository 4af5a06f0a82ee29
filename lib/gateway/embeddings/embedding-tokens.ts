/**
 * Token counts for embedding billing when the upstream reports none (Gemini's API and the demo
 * upstream), and the upper bound the hold is sized on.
 */
import type { ModelPrice } from "../../../db/schema";
import { tokenCostMicro } from "../../billing/money";
import type { EmbeddingInput } from "../media/embedding-request";

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * A BPE-like estimate: about four characters of a word per token, one per punctuation mark,
 * one per CJK character. Never more than the UTF-8 byte count, so never above the hold.
 */
export function estimateTextTokens(text: string): number {
  let tokens = 0;
  for (const piece of text.match(/[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu) ?? []) {
    if (CJK.test(piece)) tokens += Array.from(piece).length;
    else tokens += Math.ceil(piece.length / 4);
  }
  return Math.min(Math.max(1, tokens), Buffer.byteLength(text, "utf8"));
}

export function estimateEmbeddingTokens(input: EmbeddingInput): number {
  if (input.kind === "tokens") return input.tokens.reduce((n, t) => n + t.length, 0);
  return input.texts.reduce((n, t) => n + estimateTextTokens(t), 0);
}

/**
 * A true upper bound on what any byte-level tokenizer can count: every token covers at least
 * one byte of UTF-8. The hold is sized on this, so a settle is never clamped below the truth.
 */
export function maxEmbeddingTokens(input: EmbeddingInput): number {
  if (input.kind === "tokens") return input.tokens.reduce((n, t) => n + t.length, 0);
  return input.texts.reduce((n, t) => n + Math.max(1, Buffer.byteLength(t, "utf8")), 0);
}

export function embeddingCostMicro(tokens: number, price: ModelPrice): number {
  return tokenCostMicro(tokens, price.inputPerMTok ?? 0);
}
