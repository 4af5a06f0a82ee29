/**
 * POST /v1/embeddings: validate, resolve the model, hold the worst case (every byte a token),
 * call the upstream (failover on retryable failures), settle on the tokens the upstream
 * reports (counted when it reports none), answer in the format the client asked for.
 */
import { getDb } from "../../../db/client";
import { resolveModel } from "../catalog";
import { json, type GatewayResponse } from "../http";
import type { RouteContext } from "../types";
import { DEFAULT_EMBED_TIMEOUT_MS, embedWithUpstream } from "../upstreams/embed-upstream";
import { health, routeFor } from "../health";
import type { ModelRoute } from "../model-route";
import { failover, NO_RETRY } from "../upstreams/failover";
import { parseEmbeddingRequest, inputCount, type EmbeddingRequest } from "./embedding-request";
import { embeddingList } from "./embedding-response";
import { embeddingCostMicro, estimateEmbeddingTokens, maxEmbeddingTokens } from "./embedding-tokens";
import { holdTtlMs } from "../../billing/holds";
import type { RequestLogFields } from "../../billing/port";
import { chargeHeaders, refusalError, routeBilling } from "../billing";
import { errors, type ApiError } from "../errors";
import { tokenAdmission } from "../token-limits";

/** One embeddings wire format: how its body becomes a request and vectors become its answer. */
export interface EmbeddingsWire {
  /** The public route, for the request log. */
  route: string;
  parse(body: unknown, ctx: RouteContext): { ok: true; value: EmbeddingRequest } | { ok: false; error: ApiError };
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

export async function serveEmbeddings(ctx: RouteContext, wire: EmbeddingsWire): Promise<GatewayResponse> {
  const ROUTE = wire.route;
  const billing = routeBilling(await getDb(), ctx, ROUTE);
  const logOnly = (log: RequestLogFields) => billing.settle(null, { costMicroUsd: 0, log });
  const body = await ctx.readJson();
  if (!body.ok) {
    await logOnly({ model: null, status: body.error.status, errorCode: body.error.code, settlement: "invalid" });
    return ctx.error(body.error);
  }
  const parsed = wire.parse(body.value, ctx);
  const model = wire.modelOf(body.value, ctx);
  if (!parsed.ok) {
    await logOnly({ model, status: 400, errorCode: parsed.error.code, settlement: "invalid" });
    return ctx.error(parsed.error);
  }
  const req = parsed.value;

  const resolved = await resolveModel(ctx.principal, req.model, ["embedding"]);
  if (!resolved.ok) {
    await logOnly({ model, status: resolved.error.status, errorCode: resolved.error.code, settlement: "invalid" });
    return ctx.error(resolved.error);
  }
  const price = resolved.routes[0]!.price;
  const log = { model: req.model, priceSnapshot: price };

  const budgetMs = resolved.routes.reduce((ms, r) => ms + (r.upstream.timeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS), 0);
  // Tokens per minute and concurrency: the input's bound, settled to the counted tokens.
  const admit = tokenAdmission(ctx.principal);
  const admitted = admit ? await admit(maxEmbeddingTokens(req.input)) : null;
  if (admitted && !admitted.ok) {
    await logOnly({ ...log, status: 429, errorCode: admitted.error.code, settlement: "rejected" });
    return ctx.error(admitted.error);
  }
  const admission = admitted?.admission;
  const reserved = await billing.reserve(embeddingCostMicro(maxEmbeddingTokens(req.input), price), { ttlMs: holdTtlMs(budgetMs) });
  if (!reserved.ok) {
    admission?.release(0);
    const error = refusalError(reserved);
    await logOnly({ ...log, status: 402, errorCode: error.code, settlement: "rejected" });
    return ctx.error(error);
  }

  const routePlan = routeFor<ModelRoute>(health());
  const outcome = await failover(resolved.routes, (r) => embedWithUpstream(r, req, ctx.req.signal), { ...NO_RETRY, signal: ctx.req.signal, ...routePlan.hooks });
  const route = outcome.route ?? resolved.routes[0]!;
  const upstream = { upstreamId: route.upstream.id, upstreamProtocol: route.upstream.protocol, routeTrace: routePlan.trace() };
  const failure = !outcome.ok
    ? outcome.error
    : outcome.value.vectors.length !== inputCount(req.input)
      ? errors.upstream("The upstream answered with the wrong number of embeddings.")
      : null;
  if (failure || !outcome.ok) {
    const err = failure ?? errors.upstream("The upstream failed.");
    admission?.release(0);
    await billing.settle(reserved.hold, { costMicroUsd: 0, log: { ...log, ...upstream, status: err.status, errorCode: err.code, settlement: "upstream_error" } });
    return ctx.error(err);
  }

  const tokens = outcome.value.promptTokens ?? estimateEmbeddingTokens(req.input);
  admission?.release(tokens);
  const settled = await billing.settle(reserved.hold, {
    costMicroUsd: embeddingCostMicro(tokens, price),
    log: { ...log, ...upstream, status: 200, inputTokens: tokens, settlement: "completed" },
  });
  const headers = { ...chargeHeaders(settled), ...admission?.headers };
  // Hints only Gemini takes (task type, title) are named when the serving upstream is another.
  const dropped = route.upstream.protocol === "gemini" || !req.geminiHints ? [] : Object.keys(req.geminiHints);
  if (dropped.length) headers["x-gateway-dropped-params"] = dropped.join(", ");
  // `model` is the id the client asked for: vectors of different models must never be mixed.
  return json(200, wire.render(req, outcome.value.vectors, tokens), headers);
}
