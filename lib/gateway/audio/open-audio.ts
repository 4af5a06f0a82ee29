/**
 * The steps before the first byte of a streamed audio answer (speech, transcript events):
 * parse, resolve, hold the worst case, admit, fail over until an upstream opens its answer.
 * Every refusal is answered here with its log row; an opened answer is the caller's to relay
 * and to settle once — with `settle` — when it ends (decision 0056). The one-shot answers go
 * through the pipeline's runMetered instead. Streamed images open the same way (docs/images.md).
 */
import { getDb } from "../../../db/client";
import type { ModelKind } from "../../../db/schema";
import { holdTtlMs } from "../../billing/holds";
import type { RequestLogFields, Settled } from "../../billing/port";
import { routeBilling } from "../billing";
import { resolveModel } from "../catalog";
import type { ApiError, Outcome, ParsedRequest } from "../errors";
import { health, routeFor } from "../health";
import type { GatewayResponse } from "../http";
import type { ModelRoute } from "../model-route";
import { admit, type WorstCase } from "../pipeline";
import { tokenAdmission } from "../token-limits";
import type { RouteContext } from "../types";
import { audioTimeoutMs } from "../upstreams/audio-upstream";
import { failover, failoverOptions, NO_RETRY } from "../upstreams/failover";
import type { Result } from "../../result";

export interface OpenAudioSpec<Req, Out> {
  route: string;
  kind: ModelKind;
  parse(ctx: RouteContext): Promise<ParsedRequest<Req>>;
  /** The worst case at these entries' prices, and what the token limits count — or a 400. */
  holdFor(req: Req, routes: readonly ModelRoute[]): Result<WorstCase, ApiError>;
  /** One entry's upstream timeout (bounds the hold's lifetime); default the audio one. */
  timeoutMs?(route: ModelRoute): number;
  /** Log fields every row of the request has (its stream flag, what it was metered on). */
  logBase(req: Req): Partial<RequestLogFields>;
  call(route: ModelRoute, req: Req, signal: AbortSignal): Promise<Outcome<Out>>;
}

export interface OpenedAudio<Req, Out> {
  req: Req;
  out: Out;
  route: ModelRoute;
  /** Rate-limit headers and x-gateway-model for the answer. */
  headers: Record<string, string>;
  /** The charge and the one log row, with the token reservation given back; call once. */
  settle(costMicroUsd: number, log: Partial<RequestLogFields> & Pick<RequestLogFields, "status" | "settlement">): Promise<Settled>;
}

/** An opened answer, or the refusal's answer (its log row already written). */
export async function openAudio<Req, Out>(ctx: RouteContext, spec: OpenAudioSpec<Req, Out>): Promise<Result<OpenedAudio<Req, Out>, GatewayResponse>> {
  const db = await getDb();
  const billing = routeBilling(db, ctx, spec.route, spec.kind);
  const refuse = async (log: RequestLogFields, error: ApiError) => {
    await billing.settle(null, { costMicroUsd: 0, log: Object.assign(log, { status: error.status, errorCode: error.code }) });
    return { ok: false as const, error: ctx.error(error) };
  };
  const parsed = await spec.parse(ctx);
  if (!parsed.ok) return refuse({ model: parsed.model, status: 400, settlement: "invalid" }, parsed.error);
  const { req, model } = parsed.value;
  const resolved = await resolveModel(ctx.principal, model, [spec.kind], ctx.observe);
  if (!resolved.ok) return refuse({ model, status: 400, settlement: "invalid" }, resolved.error);
  const routes = resolved.value.routes;
  const base = Object.assign({ model, priceSnapshot: routes[0]!.price }, spec.logBase(req));

  const held = spec.holdFor(req, routes);
  if (!held.ok) return refuse(Object.assign({}, base, { status: 400, settlement: "invalid" }), held.error);
  const { holdMicroUsd, tokens } = held.value;
  const ttlMs = holdTtlMs(routes.reduce((ms, r) => ms + (spec.timeoutMs ?? audioTimeoutMs)(r), 0));
  const admission = await admit({
    tokens,
    admitTokens: tokenAdmission(ctx.principal),
    reserve: () => billing.reserve(holdMicroUsd, { ttlMs }),
  });
  if (!admission.ok) return refuse(Object.assign({}, base, { status: 429, settlement: "rejected" }), admission.error);
  const admitted = admission.value;

  const plan = routeFor<ModelRoute>(health(), { caller: ctx.principal.accountId });
  const signal = ctx.req.signal;
  const outcome = await failover(routes, (r) => spec.call(r, req, signal), failoverOptions(NO_RETRY, plan.hooks, signal));
  const route = outcome.route ?? routes[0]!;
  const served = {
    upstreamId: route.upstream.id,
    upstreamProtocol: route.upstream.protocol,
    upstreamModel: route.upstreamModel,
    routeTrace: plan.trace(),
    priceSnapshot: route.price,
    servedModel: route.modelId !== model ? route.modelId : null,
  };
  const settle = (costMicroUsd: number, log: Partial<RequestLogFields> & Pick<RequestLogFields, "status" | "settlement">) => {
    admitted.release(tokens);
    return billing.settle(admitted.hold, { costMicroUsd, log: Object.assign({}, base, served, log) });
  };
  if (!outcome.ok) {
    await settle(0, { status: outcome.error.status, errorCode: outcome.error.code, settlement: "upstream_error" });
    return { ok: false, error: ctx.error(outcome.error) };
  }
  return { ok: true, value: { req, out: outcome.value, route, headers: Object.assign({ "x-gateway-model": route.modelId }, admitted.headers), settle } };
}

/** The log fields of a stream that broke after its first byte: nothing charged. */
export function brokenStream(err: unknown): Pick<RequestLogFields, "status" | "settlement" | "errorCode" | "usageNote"> {
  return { status: 502, errorCode: "upstream_error", settlement: "upstream_error", usageNote: `the stream broke: ${err instanceof Error ? err.message : "unknown"}`.slice(0, 300) };
}
