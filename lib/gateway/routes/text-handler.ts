/**
 * One text-generation request, whatever the inbound protocol: parse → routes → plans → hold →
 * upstream (retries and failover before the first byte) → settle → render (the hold before the
 * plans when planning would download media: decision 0036). Framework-free and
 * database-free: the catalog and the money come in through TextDeps. The steps live beside it:
 * text-plan (what each entry is sent), text-hold (the worst case), text-run (the admitted
 * request's shared rules), text-complete and text-stream (the two ways of answering).
 */
import type { Hold } from "../../billing/port";
import { errorResponse, errors, type ApiError } from "../errors";
import type { GatewayResponse } from "../http";
import { health, routeFor } from "../health";
import type { ModelRoute } from "../model-route";
import { admit, type Admitted } from "../pipeline";
import type { ParseOptions } from "../protocols/types";
import { promptTokenBound, rawBodyTokenBound } from "../tokens";
import { GUARDRAILS_HEADER, guardRequest, type GuardSession } from "../guardrails/session";
import { lookup, replay, type CacheTicket } from "../response-cache/cache";
import { affinityKey, orderByAffinity } from "./text-affinity";
import { completeText } from "./text-complete";
import { outputTokenCap, textHold, whatWouldFit } from "./text-hold";
import { defaultOutputCap, downloadsMedia, mayPassThrough, planRoutes } from "./text-plan";
import { TextRun } from "./text-run";
import { streamText } from "./text-stream";
import type { SettlementReason, TextCall, TextDeps } from "./text-types";

export type { TextCall } from "./text-types";

export { DEFAULT_TEXT_TIMEOUT_MS, DROPPED_PARAMS_HEADER, SERVED_MODEL_HEADER } from "./text-run";
export { FALLBACK_MAX_OUTPUT_TOKENS } from "./text-plan";

export async function handleText(tc: TextCall, deps: TextDeps): Promise<GatewayResponse> {
  const { protocol } = tc;
  const base = { inboundProtocol: protocol.name, stream: tc.parseOpts?.stream ?? (tc.body as { stream?: unknown } | null)?.stream === true };
  /** A request refused before any upstream call: its log row, and the client's error. */
  const reject = async (err: ApiError, reason: SettlementReason, model: string | null, route: ModelRoute | null = null, held: Admitted<Hold> | null = null, guardrails: string | null = null) => {
    const latencyMs = Math.round(performance.now() - tc.startedAt);
    held?.release(0);
    const log = { model, upstreamId: route?.upstream.id ?? null, upstreamProtocol: route?.upstream.protocol ?? null, inboundProtocol: base.inboundProtocol, stream: base.stream, status: err.status, errorCode: err.code, settlement: reason, priceSnapshot: route?.price ?? null, latencyMs, guardrails };
    await deps.billing.settle(held?.hold ?? null, { costMicroUsd: 0, log });
    const refused = errorResponse(err, protocol.errorStyle);
    if (guardrails) refused.headers[GUARDRAILS_HEADER] = guardrails;
    return refused;
  };

  // Gateway files the request names become inline parts before anything reads the body (decision 0074).
  if (deps.inlineFiles) {
    const inlined = await deps.inlineFiles(tc.body);
    if (!inlined.ok) return reject(inlined.error, "invalid_request", modelOf(tc.body, tc.parseOpts));
    if (inlined.value) tc = { ...tc, body: inlined.value.body, bodyBytes: tc.bodyBytes + inlined.value.addedBytes };
  }

  const parsed = protocol.parseRequest(tc.body, tc.parseOpts);
  if (!parsed.ok) return reject(parsed.error, "invalid_request", modelOf(tc.body, tc.parseOpts));
  let req = parsed.value;
  base.stream = req.stream;

  const resolved = await deps.resolveRoutes(req.model);
  if (!resolved.ok) return reject(resolved.error, "rejected", req.model);
  const routes = resolved.value.routes;
  if (!routes.length) return reject(errors.modelNotFound(req.model), "rejected", req.model);
  // Guardrails (docs/guardrails.md): pre_request hooks run before any money moves, so a block costs nothing.
  let guard: GuardSession | null = null;
  if (deps.guardrails) {
    const g = await guardRequest(deps.guardrails, deps.caller ?? "", protocol, tc, req);
    if (!g.ok) return reject(g.error, "rejected", req.model, null, null, g.label);
    ({ session: guard, req } = g.value);
  }
  // The exact response cache (docs/guardrails.md): a hit is replayed at $0 before any hold.
  let cache: CacheTicket | null = null;
  if (deps.cache) {
    const c = await lookup(deps.cache, protocol.name, req, tc.body, guard?.policy ?? "");
    const hit = c.hit;
    if (hit) {
      const latencyMs = Math.round(performance.now() - tc.startedAt);
      const log = { model: req.model, inboundProtocol: base.inboundProtocol, stream: base.stream, status: 200, settlement: "cache_hit", latencyMs, ttftMs: latencyMs, servedModel: hit.servedModel !== req.model ? hit.servedModel : null, guardrails: guard?.label ?? null, savedMicroUsd: hit.costMicroUsd };
      await deps.billing.settle(null, { costMicroUsd: 0, log });
      return replay(hit, guard ? { [GUARDRAILS_HEADER]: guard.policy } : {});
    }
    cache = c.ticket;
  }
  defaultOutputCap(req, routes);

  // Token and concurrency limits reserve the same worst case as the money; the settlement gives back the rest.
  const admitFor = async (entries: readonly ModelRoute[], bound: number) => {
    const hold = textHold(req, entries, bound);
    const admitted = await admit({ tokens: bound + outputTokenCap(req), admitTokens: deps.admitTokens, reserve: () => deps.billing.reserve(hold) });
    if (admitted.ok) return { admitted: admitted.value, hold, refused: null };
    const first = entries[0]!;
    const err = admitted.stage === "money" && admitted.availableMicroUsd !== undefined ? whatWouldFit(admitted.error, protocol, bound, req.maxOutputTokens!, hold, admitted.availableMicroUsd, first.price) : admitted.error;
    return { refused: await reject(err, "rejected", req.model, first) } as const;
  };
  // Media an entry needs downloaded: the key's limits and the money are taken first, at every
  // entry's worst case (at least what the planned ones need), so a request that cannot pay
  // makes the gateway download nothing (decision 0036).
  const early = downloadsMedia(tc, req, routes) ? await admitFor(routes, mayPassThrough(tc, routes) ? rawBodyTokenBound(tc.bodyBytes, req) : promptTokenBound(req)) : null;
  if (early?.refused) return early.refused;

  const planned = await planRoutes(tc, req, routes);
  if (!planned.ok) return reject(planned.error, planned.reason, req.model, routes[0]!, early?.admitted);
  const { plans } = planned.value;
  let usable = planned.value.usable;
  const bound = usable.some((r) => plans.get(r)!.call.passthrough) ? rawBodyTokenBound(tc.bodyBytes, req) : promptTokenBound(req);
  // An alias with context fallback skips targets whose window the prompt bound exceeds (none fit: all are tried).
  if (resolved.value.alias?.contextFallback) {
    const fit = usable.filter((r) => !r.contextWindow || bound <= r.contextWindow);
    if (fit.length) usable = fit;
  }

  // Several entries: the one holding this key's prompt prefix in its cache goes first unless its
  // circuit is open; otherwise tiers, weights and circuits decide (health).
  const several = usable.length > 1;
  const affinity = several && deps.affinityScope ? affinityKey(deps.affinityScope, req) : null;
  const sticky = affinity ? orderByAffinity(affinity, usable) : null;
  const prefer = sticky?.routing === "sticky" ? sticky.routes[0]! : null;
  const routePlan = routeFor<ModelRoute>(health(), { prefer, caller: deps.caller, wholeAnswer: !req.stream });

  const money = early ?? (await admitFor(usable, bound));
  if (money.refused) return money.refused;
  const { admitted, hold } = money;

  const run = new TextRun({ tc, deps, req, plans, usable, holdMicroUsd: hold, admitted, routePlan, ordering: several ? "order" : null, prefer, affinity, base, guard, cache });
  return req.stream ? streamText(run) : completeText(run);
}

function modelOf(body: unknown, opts?: ParseOptions): string | null {
  if (opts?.pathModel) return opts.pathModel;
  const m = (body as { model?: unknown } | null)?.model;
  return typeof m === "string" ? m.slice(0, 200) : null;
}
