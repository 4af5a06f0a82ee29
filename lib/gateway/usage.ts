/**
 * The one way to build a canonical Usage from an upstream's counts. Every upstream decoder
 * (streamed and not) goes through `makeUsage`, so each count is validated once, at the edge:
 * a finite, non-negative whole number (or a string of digits) is taken; anything else
 * (`1e999`, `"many"`, `7.5`, `-3`, an object) is treated as missing and named in
 * `invalidFields`. A missing input or output total is marked `unreported` and the route
 * estimates it (the request-log row then says "completed_estimated"); a missing cache or
 * reasoning class is 0.
 */
import type { Usage } from "./canonical";

/** A token count as the upstream sent it: the number, `undefined` when absent, `null` when unusable. */
export function tokenCount(v: unknown): number | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number") return Number.isSafeInteger(v) && v >= 0 ? v : null;
  if (typeof v === "string" && /^\d{1,16}$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

/** Upstream counts in canonical words; each value is whatever the upstream sent. */
export interface UsageCounts {
  /** All prompt tokens, cache included (OpenAI, Gemini). Give this or `inputUncached`. */
  inputTotal?: unknown;
  /** Prompt tokens outside the cache (Anthropic's input_tokens). */
  inputUncached?: unknown;
  cacheRead?: unknown;
  /** Cache writes without a TTL split: what the split does not cover counts as 5-minute writes (the default TTL). */
  cacheWrite?: unknown;
  cacheWrite5m?: unknown;
  cacheWrite1h?: unknown;
  /** All output tokens, reasoning included. Give this or `outputVisible`. */
  outputTotal?: unknown;
  /** Output without the reasoning (Gemini's candidatesTokenCount): reasoning is added to it. */
  outputVisible?: unknown;
  reasoning?: unknown;
  /** Image tokens drawn (part of the output, beside the reasoning). */
  imageOutput?: unknown;
}

export function makeUsage(c: UsageCounts, raw?: unknown): Usage {
  const invalid: string[] = [];
  const read = (k: keyof UsageCounts): number | undefined => {
    const n = tokenCount(c[k]);
    if (n === null) invalid.push(k);
    return n ?? undefined;
  };
  const cacheRead = read("cacheRead") ?? 0;
  const w = read("cacheWrite");
  let w5 = read("cacheWrite5m") ?? 0;
  const w1 = read("cacheWrite1h") ?? 0;
  if (w !== undefined && w > w5 + w1) w5 = w - w1;
  const cached = cacheRead + w5 + w1;

  const unreported: Array<"input" | "output"> = [];
  let input = read("inputTotal");
  if (input === undefined) {
    const uncached = read("inputUncached");
    if (uncached !== undefined) input = uncached + cached;
  } else if (input < cached) {
    // The cache classes are parts of the total: an upstream saying otherwise is inconsistent.
    invalid.push("inputTotal");
    input = cached;
  }
  if (input === undefined) unreported.push("input");

  let reasoning = read("reasoning") ?? 0;
  let output = read("outputTotal");
  if (output === undefined) {
    const visible = read("outputVisible");
    if (visible !== undefined) output = visible + reasoning;
  } else if (reasoning > output) {
    invalid.push("reasoning");
    reasoning = output;
  }
  if (output === undefined) unreported.push("output");
  let imageOutput = read("imageOutput") ?? 0;
  if (output !== undefined && imageOutput > output - reasoning) {
    invalid.push("imageOutput");
    imageOutput = output - reasoning;
  }

  const u: Usage = { inputTokens: input ?? cached, outputTokens: output ?? 0 };
  if (cacheRead) u.cacheReadTokens = cacheRead;
  if (w5) u.cacheWrite5mTokens = w5;
  if (w1) u.cacheWrite1hTokens = w1;
  if (reasoning) u.reasoningTokens = reasoning;
  if (imageOutput) u.imageOutputTokens = imageOutput;
  if (unreported.length) u.unreported = unreported;
  if (invalid.length) u.invalidFields = invalid;
  if (raw !== undefined) u.raw = raw;
  return u;
}

/**
 * Fills what the upstream did not report with our own counts (never below the cache classes
 * it did report) and marks the usage estimated. Usage without gaps comes back as is.
 */
export function fillUnreported(u: Usage, estimateInput: () => number, estimateOutput: () => number): Usage {
  if (!u.unreported?.length) return u;
  const out: Usage = { ...u, estimated: true };
  delete out.unreported;
  if (u.unreported.includes("input")) out.inputTokens = Math.max(estimateInput(), cachedTokens(u));
  if (u.unreported.includes("output")) out.outputTokens = Math.max(estimateOutput(), (u.reasoningTokens ?? 0) + (u.imageOutputTokens ?? 0));
  return out;
}

export function cachedTokens(u: Usage): number {
  return (u.cacheReadTokens ?? 0) + (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0);
}

export { usageClasses, type UsageClasses } from "../billing/token-classes";
