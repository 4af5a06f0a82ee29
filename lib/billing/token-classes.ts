/**
 * Token classes, below both money and the gateway: lib/billing prices them, the gateway and the
 * console render them. Every field is part of the canonical Usage (lib/gateway/canonical.ts).
 */
/** The counts a price needs: cache and reasoning tokens are parts of input and output. */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  /** Image tokens a text model drew (part of outputTokens, beside reasoning). */
  imageOutputTokens?: number;
}

/** The seven disjoint classes a request is billed on; their sum is inputTokens + outputTokens. */
export interface UsageClasses {
  /** Prompt tokens outside the cache. */
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  /** Output tokens that are neither reasoning nor image. */
  output: number;
  reasoning: number;
  /** Image tokens drawn by the model (Gemini image models on the text routes). */
  imageOutput: number;
}

export function usageClasses(u: TokenCounts): UsageClasses {
  const cacheRead = u.cacheReadTokens ?? 0;
  const cacheWrite5m = u.cacheWrite5mTokens ?? 0;
  const cacheWrite1h = u.cacheWrite1hTokens ?? 0;
  const reasoning = Math.min(u.reasoningTokens ?? 0, u.outputTokens);
  const imageOutput = Math.min(u.imageOutputTokens ?? 0, u.outputTokens - reasoning);
  return {
    input: Math.max(0, u.inputTokens - cacheRead - cacheWrite5m - cacheWrite1h),
    cacheRead,
    cacheWrite5m,
    cacheWrite1h,
    output: u.outputTokens - reasoning - imageOutput,
    reasoning,
    imageOutput,
  };
}
