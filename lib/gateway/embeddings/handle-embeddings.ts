/**
 * POST /v1/embeddings (and Gemini's embed methods, google.ts): hold the worst case (every byte a
 * token), call the upstream, settle on the tokens the upstream reports (counted when it reports
 * none), answer in the wire format the client used. The rest is the pipeline's (runMetered).
 */
import type { BillingPort } from "../../billing/port";
import { json, type GatewayResponse } from "../http";
import type { RouteContext } from "../types";
import { DEFAULT_EMBED_TIMEOUT_MS, embedWithUpstream } from "../upstreams/embed-upstream";
import { runMetered, type MeteredSpec } from "../pipeline";
import { inputCount, parseEmbeddingRequest, type EmbeddingRequest } from "../media/embedding-request";
import { embeddingList } from "./embedding-response";
import { embeddingCostMicro, estimateEmbeddingTokens, maxEmbeddingTokens } from "./embedding-tokens";
import { errors, type ApiError } from "../errors";
import type { EmbeddingResult } from "../media/embedding-result";
import type { Result } from "../../result";

/** One embeddings wire format: how its body becomes a request and vectors become its answer. */
export interface EmbeddingsWire {
  /** The public route, for the request log. */
  route: string;
  parse(body: unknown, ctx: RouteContext): Result<EmbeddingRequest, ApiError>;
  /** The model named by the request, for the log of a request that fails to parse. */
  modelOf(body: unknown, ctx: RouteContext): string | null;
  render(req: EmbeddingRequest, vectors: Array<ArrayLike<number>>, promptTokens: number): unknown;
}

/** POST /v1/embeddings (OpenAI's wire format). */
export const openaiEmbeddings: EmbeddingsWire = {
  route: "/v1/embeddings",
  parse: (body) => parseEmbeddingRequest(body),
  modelOf: (body) => {
    const m = (body as { model?: unknown } | null)?.model;
    return typeof m === "string" ? m : null;
  },
  render: (req, vectors, tokens) => embeddingList(req.model, vectors, req.encodingFormat, tokens),
};

export const handleEmbeddings = (ctx: RouteContext) => serveEmbeddings(ctx, openaiEmbeddings);

export function serveEmbeddings(ctx: RouteContext, wire: EmbeddingsWire, billing?: BillingPort): Promise<GatewayResponse> {
  return runMetered(ctx, embeddingsSpec(wire), billing);
}

function embeddingsSpec(wire: EmbeddingsWire): MeteredSpec<EmbeddingRequest, null, EmbeddingResult> {
  return {
    route: wire.route,
    kinds: ["embedding"],
    async parse(ctx) {
      const body = await ctx.readJson();
      if (!body.ok) return { ok: false, error: body.error, model: null };
      const parsed = wire.parse(body.value, ctx);
      const model = wire.modelOf(body.value, ctx);
      return parsed.ok ? { ok: true, value: { req: parsed.value, model: parsed.value.model } } : { ok: false, error: parsed.error, model };
    },
    // Tokens per minute and concurrency count the input's bound, settled to the counted tokens.
    holdFor: (req, routes) => {
      const tokens = maxEmbeddingTokens(req.input);
      // Entries of a model may carry their own prices: the hold covers the dearest, the charge is the server's.
      const holdMicroUsd = Math.max(...routes.map((r) => embeddingCostMicro(tokens, r.price)));
      return { ok: true, value: { plan: null, holdMicroUsd, tokens } };
    },
    timeoutMs: (route) => route.upstream.timeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS,
    call: (route, req, _plan, signal) => embedWithUpstream(route, req, signal),
    costOf(req, _plan, out, route) {
      if (out.vectors.length !== inputCount(req.input)) return { ok: false, error: errors.upstream("The upstream answered with the wrong number of embeddings.") };
      const tokens = out.promptTokens ?? estimateEmbeddingTokens(req.input);
      return { ok: true, value: { costMicroUsd: embeddingCostMicro(tokens, route.price), usedTokens: tokens, log: { inputTokens: tokens } } };
    },
    render(req, _plan, out, route, headers) {
      // Hints only Gemini takes (task type, title) are named when the serving upstream is another.
      const dropped = route.upstream.protocol === "gemini" || !req.geminiHints ? [] : Object.keys(req.geminiHints);
      if (dropped.length) headers["x-gateway-dropped-params"] = dropped.join(", ");
      const tokens = out.promptTokens ?? estimateEmbeddingTokens(req.input);
      // `model` is the id the client asked for: vectors of different models must never be mixed.
      return json(200, wire.render(req, out.vectors, tokens), headers);
    },
  };
}
