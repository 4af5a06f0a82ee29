/**
 * OpenAI (and OpenAI-compatible) embeddings: POST {baseUrl}/embeddings.
 * @see OpenAI's Embeddings API reference
 */
import { z } from "zod";
import { decodeFloat32Base64 } from "../media/float32-base64";
import type { EmbeddingRequest } from "../media/embedding-request";
import type { EmbeddingResult } from "../media/embedding-result";
import { badAnswer, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { postJson } from "./http";
import { openaiEndpoint, type OpenAIEndpoint } from "./openai-endpoint";

const responseSchema = z.looseObject({
  data: z.array(z.looseObject({ index: z.number().int().nonnegative(), embedding: z.union([z.array(z.number()), z.string()]) })),
  usage: z.looseObject({ prompt_tokens: z.number().int().nonnegative() }).optional(),
});

export interface EmbedCallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
}

export async function openaiEmbed(
  route: ModelRoute,
  req: EmbeddingRequest,
  opts: EmbedCallOptions,
  endpoint: OpenAIEndpoint = openaiEndpoint,
): Promise<Outcome<EmbeddingResult>> {
  const input = req.input.kind === "text" ? req.input.texts : req.input.tokens;
  const body: Record<string, unknown> = {
    model: route.upstreamModel,
    input,
    // Asking for what the client wants lets a same-format answer pass with one decode; a
    // provider that ignores it and answers floats is handled below all the same.
    encoding_format: req.encodingFormat,
  };
  if (req.dimensions !== undefined) body.dimensions = req.dimensions;
  if (req.user !== undefined) body.user = req.user;

  const at = endpoint(route, "embeddings");
  const res = await postJson({
    url: at.url,
    headers: at.headers,
    body,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    secret: route.upstream.apiKey,
  });
  if (!res.ok) return res;
  const parsed = responseSchema.safeParse(res.value);
  if (!parsed.success) return malformed("the answer is not an embedding list");

  const vectors: Array<ArrayLike<number>> = new Array(input.length);
  for (const item of parsed.data.data) {
    if (item.index >= input.length || vectors[item.index]) return malformed("an embedding index is out of range or repeated");
    const vec = typeof item.embedding === "string" ? decodeFloat32Base64(item.embedding) : item.embedding;
    if (!vec) return malformed("an embedding is not valid base64 float32");
    vectors[item.index] = vec;
  }
  for (let i = 0; i < input.length; i++) if (!vectors[i]) return malformed(`no embedding for input ${i}`);
  return { ok: true, value: { vectors, promptTokens: parsed.data.usage?.prompt_tokens ?? null } };
}

function malformed(why: string) {
  return badAnswer(`The upstream answered with an invalid embedding list: ${why}.`);
}
