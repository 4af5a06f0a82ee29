/**
 * Token prices → micro-USD, exactly (docs/design.md, "Money"; docs/billing.md):
 *   cost = ⌈ Σ class tokens × class price per million / 10⁶ ⌉
 * over the seven disjoint classes of lib/gateway/usage.ts (uncached input, cache read, 5-minute
 * cache write, 1-hour cache write, text output, reasoning, image output), in BigInt, one round-up
 * per request. A class without its own price is billed at the input price (cache classes) or the
 * output price (reasoning, image output).
 */
import type { ModelPrice } from "../../db/schema";
import { usageClasses, type TokenCounts } from "./token-classes";

export type { TokenCounts };

/** Every class's price, the fallbacks resolved: what a charge used (the log row's snapshot). */
export interface TextClassPrices {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok: number;
  cacheWrite5mPerMTok: number;
  cacheWrite1hPerMTok: number;
  reasoningPerMTok: number;
  /** Image tokens a text model drew (Gemini image models, decision 0073). */
  imageOutputPerMTok: number;
}

const whole = (n: number | undefined): number | undefined => (n === undefined || n === null ? undefined : Math.max(0, Math.ceil(n)));

export function textClassPrices(price: ModelPrice): TextClassPrices {
  const input = whole(price.inputPerMTok) ?? 0;
  const output = whole(price.outputPerMTok) ?? 0;
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheReadPerMTok: whole(price.cacheReadPerMTok) ?? input,
    cacheWrite5mPerMTok: whole(price.cacheWrite5mPerMTok) ?? input,
    cacheWrite1hPerMTok: whole(price.cacheWrite1hPerMTok) ?? input,
    reasoningPerMTok: whole(price.reasoningPerMTok) ?? output,
    imageOutputPerMTok: whole(price.imageOutputPerMTok) ?? output,
  };
}

/**
 * A batch line's price (docs/batches.md): every class price less the model's `batchDiscount`,
 * rounded up to a whole micro-dollar per million tokens; the model's own price without one.
 */
export function batchTextPrice(price: ModelPrice): ModelPrice {
  const p = textClassPrices(price);
  const keep = 1 - Math.min(1, Math.max(0, price.batchDiscount ?? 0));
  const off = (n: number) => Math.ceil(Math.round(n * keep * 1e6) / 1e6);
  return {
    inputPerMTok: off(p.inputPerMTok),
    outputPerMTok: off(p.outputPerMTok),
    cacheReadPerMTok: off(p.cacheReadPerMTok),
    cacheWrite5mPerMTok: off(p.cacheWrite5mPerMTok),
    cacheWrite1hPerMTok: off(p.cacheWrite1hPerMTok),
    reasoningPerMTok: off(p.reasoningPerMTok),
    ...(price.imageOutputPerMTok !== undefined ? { imageOutputPerMTok: off(p.imageOutputPerMTok) } : {}),
    ...(price.batchDiscount !== undefined ? { batchDiscount: price.batchDiscount } : {}),
  };
}

const snapshots = new WeakMap<ModelPrice, ModelPrice>();

/**
 * The snapshot stored on the request-log row: the model's price with every class price used.
 * One frozen object per configured price (a route's price is replaced, never changed, when the
 * catalog reloads), not one per request.
 */
export function textPriceSnapshot(price: ModelPrice): ModelPrice {
  let snap = snapshots.get(price);
  if (!snap) {
    // A model that does not draw keeps the six classes it always had (its image price is its output price).
    const { imageOutputPerMTok, ...classes } = textClassPrices(price);
    snap = Object.freeze({ ...price, ...classes, ...(price.imageOutputPerMTok !== undefined ? { imageOutputPerMTok } : {}) });
    snapshots.set(price, snap);
  }
  return snap;
}

const big = (n: number) => BigInt(Math.max(0, Math.ceil(n)));

export function textCostMicro(tokens: TokenCounts, price: ModelPrice): number {
  const p = textClassPrices(price);
  const c = usageClasses(tokens);
  const total =
    big(c.input) * big(p.inputPerMTok) +
    big(c.cacheRead) * big(p.cacheReadPerMTok) +
    big(c.cacheWrite5m) * big(p.cacheWrite5mPerMTok) +
    big(c.cacheWrite1h) * big(p.cacheWrite1hPerMTok) +
    big(c.output) * big(p.outputPerMTok) +
    big(c.reasoning) * big(p.reasoningPerMTok) +
    big(c.imageOutput) * big(p.imageOutputPerMTok);
  const q = total / 1_000_000n;
  return Number(total % 1_000_000n === 0n ? q : q + 1n);
}

/**
 * The hold: a true upper bound on what the request can cost, whatever share of the prompt the
 * upstream reads from or writes to its cache and however much of the output is reasoning. Each
 * bound is priced at the highest price its tokens can be billed at.
 */
/**
 * The largest output cap whose hold fits `availableMicroUsd` with this prompt bound (0 when even
 * the prompt does not fit): what a 402 suggests instead of a bare "insufficient balance".
 */
export function affordableMaxTokens(promptTokenBound: number, availableMicroUsd: number, price: ModelPrice): number {
  const p = textClassPrices(price);
  const promptPrice = BigInt(Math.max(p.inputPerMTok, p.cacheReadPerMTok, p.cacheWrite5mPerMTok, p.cacheWrite1hPerMTok));
  const outputPrice = BigInt(Math.max(p.outputPerMTok, p.reasoningPerMTok, p.imageOutputPerMTok));
  // hold = ⌈(prompt × promptPrice + cap × outputPrice) / 1e6⌉ ≤ available  ⇔  the sum ≤ available × 1e6.
  const room = BigInt(Math.floor(availableMicroUsd)) * 1_000_000n - BigInt(promptTokenBound) * promptPrice;
  if (room < 0n) return 0;
  if (outputPrice === 0n) return Number.MAX_SAFE_INTEGER;
  const cap = room / outputPrice;
  return cap > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(cap);
}

export function textHoldMicro(promptTokenBound: number, maxOutputTokens: number, price: ModelPrice): number {
  const p = textClassPrices(price);
  const promptPrice = Math.max(p.inputPerMTok, p.cacheReadPerMTok, p.cacheWrite5mPerMTok, p.cacheWrite1hPerMTok);
  const outputPrice = Math.max(p.outputPerMTok, p.reasoningPerMTok, p.imageOutputPerMTok);
  return textCostMicro({ inputTokens: promptTokenBound, outputTokens: maxOutputTokens }, { inputPerMTok: promptPrice, outputPerMTok: outputPrice });
}
