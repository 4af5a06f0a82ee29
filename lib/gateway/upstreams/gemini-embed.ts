/**
 * Gemini (Google AI, v1beta) embeddings: `:embedContent` for one text, `:batchEmbedContents`
 * for several (at most 100 per call, so larger requests go in chunks). Gemini reports no token
 * usage here; the caller counts.
 * Wire names are those of @google/genai's converters (embedContentParametersPrivateToMldev).
 */
import { z } from "zod";
import type { EmbeddingRequest } from "../media/embedding-request";
import type { EmbeddingResult } from "../media/embedding-result";
import { badAnswer, errors, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { joinUrl, postJson } from "./http";
import type { EmbedCallOptions } from "./openai-embed";

export const GEMINI_BATCH_LIMIT = 100;

const values = z.looseObject({ values: z.array(z.number()) });
const singleSchema = z.looseObject({ embedding: values });
const batchSchema = z.looseObject({ embeddings: z.array(values) });

export async function geminiEmbed(
  route: ModelRoute,
  req: EmbeddingRequest,
  opts: EmbedCallOptions,
): Promise<Outcome<EmbeddingResult>> {
  if (req.input.kind !== "text")
    return { ok: false, error: errors.invalidRequest("This model takes text `input` only, not token arrays.", "input"), retryable: false };
  const model = route.upstreamModel.replace(/^models\//, "");
  const base = joinUrl(route.upstream.baseUrl, `v1beta/models/${encodeURIComponent(model)}`);
  const headers: Record<string, string> = route.upstream.apiKey ? { "x-goog-api-key": route.upstream.apiKey } : {};
  const dims = { ...(req.dimensions !== undefined ? { outputDimensionality: req.dimensions } : {}), ...req.geminiHints };
  const texts = req.input.texts;

  if (texts.length === 1) {
    const res = await postJson({
      url: `${base}:embedContent`,
      headers,
      body: { content: { parts: [{ text: texts[0] }] }, ...dims },
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      secret: route.upstream.apiKey,
    });
    if (!res.ok) return res;
    const parsed = singleSchema.safeParse(res.value);
    if (!parsed.success) return malformed();
    return { ok: true, value: { vectors: [parsed.data.embedding.values], promptTokens: null } };
  }

  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += GEMINI_BATCH_LIMIT) {
    const chunk = texts.slice(start, start + GEMINI_BATCH_LIMIT);
    const res = await postJson({
      url: `${base}:batchEmbedContents`,
      headers,
      body: { requests: chunk.map((text) => ({ model: `models/${model}`, content: { parts: [{ text }] }, ...dims })) },
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      secret: route.upstream.apiKey,
    });
    if (!res.ok) return res;
    const parsed = batchSchema.safeParse(res.value);
    if (!parsed.success || parsed.data.embeddings.length !== chunk.length) return malformed();
    for (const e of parsed.data.embeddings) vectors.push(e.values);
  }
  return { ok: true, value: { vectors, promptTokens: null } };
}

function malformed() {
  return badAnswer("The upstream answered with an invalid embedding list.");
}
