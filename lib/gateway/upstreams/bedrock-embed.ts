/**
 * Embeddings on a `bedrock` upstream: InvokeModel (POST {base}/model/{modelId}/invoke, SigV4)
 * with each family's own body, chosen by the model id.
 * - Amazon Titan Text Embeddings (`amazon.titan-embed-text-v2:0`, `…-v1`): one text a call,
 *   `{inputText, dimensions, normalize}`; the answer's `inputTextTokenCount` is what was billed.
 *   v2 takes 256, 512 or 1024 dimensions; v1 none.
 * - Cohere Embed (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`, `cohere.embed-v4:0`):
 *   up to 96 texts a call, `{texts, input_type: "search_document", embedding_types: ["float"]}`
 *   (v4 also `output_dimension`: 256, 512, 1024, 1536); the billed tokens are the
 *   `x-amzn-bedrock-input-token-count` header, the body has none.
 * Token-array inputs are refused (both take text), as are dimensions a model has no choice of.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html
 */
import type { EmbeddingRequest } from "../media/embedding-request";
import type { EmbeddingResult } from "../media/embedding-result";
import { badAnswer, errors, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { bedrockBaseUrl, signBedrock } from "./bedrock-auth";
import { callUpstream, readJson } from "./http";
import type { EmbedCallOptions } from "./openai-embed";

export const COHERE_BATCH_LIMIT = 96;
/** Titan takes one text a call: this many calls at once. */
const TITAN_CONCURRENCY = 8;

const TITAN_V2_DIMENSIONS = [256, 512, 1024];
const COHERE_V4_DIMENSIONS = [256, 512, 1024, 1536];

type Family = "titan-v2" | "titan-v1" | "cohere-v3" | "cohere-v4";

export function embedFamily(modelId: string): Family | null {
  if (/amazon\.titan-embed-text-v2/.test(modelId)) return "titan-v2";
  if (/amazon\.titan-embed-text-v1|amazon\.titan-embed-g1-text/.test(modelId)) return "titan-v1";
  if (/cohere\.embed-v4/.test(modelId)) return "cohere-v4";
  if (/cohere\.embed-(english|multilingual)-v3/.test(modelId)) return "cohere-v3";
  return null;
}

const refuse = (message: string, param: string): Outcome<never> => ({ ok: false, error: errors.invalidRequest(message, param), retryable: false });

/** One signed InvokeModel call: its JSON and the token count Bedrock puts in a header. */
async function invoke(route: ModelRoute, body: unknown, opts: EmbedCallOptions): Promise<Outcome<{ json: Record<string, unknown>; inputTokens: number | null }>> {
  const url = `${bedrockBaseUrl(route.upstream)}/model/${encodeURIComponent(route.upstreamModel)}/invoke`;
  const bytes = Buffer.from(JSON.stringify(body));
  const headers = await signBedrock(route.upstream, "POST", url, bytes, { "content-type": "application/json", accept: "application/json" });
  const opened = await callUpstream({ url, headers, body: bytes, signal: opts.signal, timeoutMs: opts.timeoutMs, secret: route.upstream.credentials?.secretAccessKey });
  if (!opened.ok) return opened;
  const count = Number(opened.value.headers["x-amzn-bedrock-input-token-count"]);
  const json = await readJson(opened.value, opts.signal);
  return json.ok ? { ok: true, value: { json: json.value, inputTokens: Number.isSafeInteger(count) && count >= 0 ? count : null } } : json;
}

const isVector = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number");
const malformed = () => badAnswer("The upstream answered with an invalid embedding list.");

export async function bedrockEmbed(route: ModelRoute, req: EmbeddingRequest, opts: EmbedCallOptions): Promise<Outcome<EmbeddingResult>> {
  const family = embedFamily(route.upstreamModel);
  if (!family) return { ok: false, error: errors.upstream("This Bedrock model is not an embedding model the gateway speaks (Titan Text Embeddings, Cohere Embed)."), retryable: false, failover: true };
  if (req.input.kind !== "text") return refuse("This model takes text `input` only, not token arrays.", "input");
  const dims = req.dimensions;
  const allowed = family === "titan-v2" ? TITAN_V2_DIMENSIONS : family === "cohere-v4" ? COHERE_V4_DIMENSIONS : [];
  if (dims !== undefined && !allowed.includes(dims))
    return refuse(allowed.length ? `\`dimensions\` must be one of ${allowed.join(", ")} for this model.` : "This model has no `dimensions` choice.", "dimensions");
  return family.startsWith("titan") ? titan(route, req.input.texts, family === "titan-v2" ? dims : undefined, opts) : cohere(route, req.input.texts, dims, opts);
}

async function titan(route: ModelRoute, texts: string[], dimensions: number | undefined, opts: EmbedCallOptions): Promise<Outcome<EmbeddingResult>> {
  const vectors: number[][] = new Array(texts.length);
  let tokens = 0;
  for (let start = 0; start < texts.length; start += TITAN_CONCURRENCY) {
    const answers = await Promise.all(
      texts.slice(start, start + TITAN_CONCURRENCY).map((inputText) => invoke(route, { inputText, ...(dimensions !== undefined ? { dimensions, normalize: true } : {}) }, opts)),
    );
    for (const [i, a] of answers.entries()) {
      if (!a.ok) return a;
      const { embedding, inputTextTokenCount } = a.value.json;
      if (!isVector(embedding) || !Number.isSafeInteger(inputTextTokenCount)) return malformed();
      vectors[start + i] = embedding;
      tokens += inputTextTokenCount as number;
    }
  }
  return { ok: true, value: { vectors, promptTokens: tokens } };
}

async function cohere(route: ModelRoute, texts: string[], dimensions: number | undefined, opts: EmbedCallOptions): Promise<Outcome<EmbeddingResult>> {
  const vectors: number[][] = [];
  let tokens: number | null = 0;
  for (let start = 0; start < texts.length; start += COHERE_BATCH_LIMIT) {
    const chunk = texts.slice(start, start + COHERE_BATCH_LIMIT);
    const body = { texts: chunk, input_type: "search_document", embedding_types: ["float"], ...(dimensions !== undefined ? { output_dimension: dimensions } : {}) };
    const a = await invoke(route, body, opts);
    if (!a.ok) return a;
    // With embedding_types the answer is {embeddings: {float: [...]}}; without, a bare list.
    const e = a.value.json.embeddings as unknown;
    const list = Array.isArray(e) ? e : (e as { float?: unknown } | null)?.float;
    if (!Array.isArray(list) || list.length !== chunk.length || !list.every(isVector)) return malformed();
    vectors.push(...list);
    // No header on any one call: the caller counts the whole request.
    tokens = tokens === null || a.value.inputTokens === null ? null : tokens + a.value.inputTokens;
  }
  return { ok: true, value: { vectors, promptTokens: tokens } };
}
