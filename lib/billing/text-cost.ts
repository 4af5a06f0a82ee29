/**
 * Token prices → micro-USD, exactly: BigInt products, one round-up per request (DESIGN.md,
 * "Money"). Cache reads and writes are billed as input at the input price (the catalog has no
 * separate cache prices); reasoning is part of output.
 */
import type { ModelPrice } from "../../db/schema";

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
}

export function textCostMicro(tokens: TokenCounts, price: ModelPrice): number {
  const inP = BigInt(Math.max(0, Math.ceil(price.inputPerMTok ?? 0)));
  const outP = BigInt(Math.max(0, Math.ceil(price.outputPerMTok ?? 0)));
  const total = BigInt(Math.max(0, Math.ceil(tokens.inputTokens))) * inP + BigInt(Math.max(0, Math.ceil(tokens.outputTokens))) * outP;
  const q = total / 1_000_000n;
  return Number(total % 1_000_000n === 0n ? q : q + 1n);
}

/** The hold: a true upper bound on what the request can cost. */
export function textHoldMicro(promptTokenBound: number, maxOutputTokens: number, price: ModelPrice): number {
  return textCostMicro({ inputTokens: promptTokenBound, outputTokens: maxOutputTokens }, price);
}
