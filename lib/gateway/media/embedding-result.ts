/** What an embedding adapter returns: one vector per input, in input order. */
export interface EmbeddingResult {
  vectors: Array<ArrayLike<number>>;
  /** Tokens the upstream billed us for; null when it reports none (then we count). */
  promptTokens: number | null;
}
