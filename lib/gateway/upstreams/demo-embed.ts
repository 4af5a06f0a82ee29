/**
 * The demo upstream's embedding model: deterministic feature-hashed vectors. Words and the
 * character trigrams inside them are hashed into signed buckets, then the vector is scaled to
 * unit length, so texts that share words or spellings get a high cosine similarity and the
 * same text always gets the same vector. No network, no model weights.
 */
import type { EmbeddingRequest } from "../media/embedding-request";
import type { Outcome } from "../errors";
import type { EmbeddingResult } from "../media/embedding-result";

export const DEMO_EMBEDDING_DIMENSIONS = 256;

export function demoEmbed(req: EmbeddingRequest): Outcome<EmbeddingResult> {
  const dims = req.dimensions ?? DEMO_EMBEDDING_DIMENSIONS;
  const vectors =
    req.input.kind === "text"
      ? req.input.texts.map((t) => hashedVector(textFeatures(t), dims))
      : req.input.tokens.map((t) => hashedVector(tokenFeatures(t), dims));
  return { ok: true, value: { vectors, promptTokens: null } };
}

export function demoEmbeddingVector(text: string, dims = DEMO_EMBEDDING_DIMENSIONS): Float32Array {
  return hashedVector(textFeatures(text), dims);
}

type Feature = [name: string, weight: number];

function textFeatures(text: string): Feature[] {
  const words = text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: Feature[] = [];
  for (const w of words) {
    out.push([`w:${w}`, 1]);
    const padded = ` ${w} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.push([`c:${padded.slice(i, i + 3)}`, 0.5]);
  }
  // Text made of punctuation only still gets a stable, non-zero vector.
  if (out.length === 0) out.push([`raw:${text}`, 1]);
  return out;
}

function tokenFeatures(tokens: number[]): Feature[] {
  const out: Feature[] = tokens.map((t) => [`t:${t}`, 1]);
  for (let i = 0; i + 1 < tokens.length; i++) out.push([`b:${tokens[i]},${tokens[i + 1]}`, 0.5]);
  return out;
}

function hashedVector(features: Feature[], dims: number): Float32Array {
  const acc = new Float64Array(dims);
  for (const [name, weight] of features) {
    const h = fnv1a(name, 0x811c9dc5);
    // A second, independent hash picks the sign, so collisions cancel out on average.
    const sign = fnv1a(name, 0x01000193) & 1 ? 1 : -1;
    acc[h % dims]! += sign * weight;
  }
  let norm = 0;
  for (const v of acc) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = acc[i]! / norm;
  return out;
}

/** 32-bit FNV-1a over UTF-16 code units; deterministic across platforms. */
function fnv1a(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
