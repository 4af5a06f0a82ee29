/**
 * The steps every metered call shares, whatever the capability:
 *
 *   resolve → price the hold → admit (tokens and concurrency, then money) → failover →
 *   settle and log → render
 *
 * `admit` is the one admission step: the token/concurrency reservation first (cheap, in memory
 * or one Redis call), then the money hold; a refusal of the second gives back the first, so no
 * capability can leak a concurrency slot on a 402. What is admitted is released exactly once,
 * with the tokens really used, by `Admitted.release`.
 */
import { getDb, type DB } from "../../db/client";
import type { ModelKind } from "../../db/schema";
import { holdTtlMs } from "../billing/holds";
import type { RequestLogFields } from "../billing/port";
import { chargeHeaders, refusalError, routeBilling } from "./billing";
import { resolveModel } from "./catalog";
import type { ApiError, Outcome } from "./errors";
import { health, routeFor } from "./health";
import type { GatewayResponse } from "./http";
import type { ModelRoute } from "./model-route";
import { tokenAdmission, type Admission, type AdmitResult } from "./token-limits";
import type { RouteContext } from "./types";
import { failover, failoverOptions, NO_RETRY, type RetryPolicy } from "./upstreams/failover";

/** A money reservation as the capability's billing answers it (the hold is opaque here). */
export type HoldOutcome<H> = { ok: true; hold: H } | { ok: false; error: ApiError; availableMicroUsd?: number };

export interface Admitted<H> {
  ok: true;
  hold: H;
  /** Rate-limit headers every answer of this request carries (x-ratelimit-*). */
  headers: Record<string, string>;
  /** Gives back the token reservation beyond `usedTokens` and the concurrency slot; once. */
  release(usedTokens: number): void;
}

export type Refused =
  /** Tokens per minute or concurrency: 429, nothing held. */
  | { ok: false; stage: "tokens"; error: ApiError }
  /** Money (402): the token reservation was already given back. */
  | { ok: false; stage: "money"; error: ApiError; availableMicroUsd?: number };

export interface AdmitInput<H> {
  /** The request's worst case in tokens (what the token limits reserve); ignored without limits. */
  tokens: number;
  /** Token and concurrency admission for this principal; undefined = no limits configured. */
  admitTokens?: (tokens: number) => Promise<AdmitResult>;
  /** The money hold of the request's worst case. */
  reserve: () => Promise<HoldOutcome<H>>;
}

const NO_HEADERS: Record<string, string> = {};

export async function admit<H>(input: AdmitInput<H>): Promise<Admitted<H> | Refused> {
  let admission: Admission | null = null;
  if (input.admitTokens) {
    const a = await input.admitTokens(input.tokens);
    if (!a.ok) return { ok: false, stage: "tokens", error: a.error };
    admission = a.admission;
  }
  const held = await input.reserve();
  if (!held.ok) {
    admission?.release(0);
    return { ok: false, stage: "money", error: held.error, availableMicroUsd: held.availableMicroUsd };
  }
  let released = false;
  return {
    ok: true,
    hold: held.hold,
    headers: admission?.headers ?? NO_HEADERS,
    release(usedTokens) {
      if (released) return;
      released = true;
      admission?.release(usedTokens);
    },
  };
}

/**
 * A one-shot metered call (embeddings, images): the spec says what is particular to the
 * capability, `runMetered` does the rest in the same order for every one — resolve, price the
 * hold, claim (an Idempotency-Key), admit, failover over the healthy entries, settle and log,
 * render. Every exit writes exactly one request-log row and releases what it took.
 */
export interface MeteredSpec<Req, Plan, Out> {
  /** The public route (the log row's `route`). */
  route: string;
  kinds: readonly ModelKind[];
  /** Reads and validates the body. `model` names the log row's model even when it does not parse. */
  parse(ctx: RouteContext): Promise<{ ok: true; req: Req; model: string } | { ok: false; error: ApiError; model: string | null }>;
  /** The worst case at these entries' prices: what is held, what the token limits count — or a 400. */
  holdFor(req: Req, routes: readonly ModelRoute[]): { ok: true; plan: Plan; holdMicroUsd: number; tokens: number } | { ok: false; error: ApiError };
  /** One entry's upstream timeout (bounds a hold row's lifetime). */
  timeoutMs(route: ModelRoute): number;
  call(route: ModelRoute, req: Req, plan: Plan, signal: AbortSignal): Promise<Outcome<Out>>;
  /** Retries per entry before failing over (default none). */
  retry?: RetryPolicy;
  /** What the served answer costs, the tokens the limits keep and its log fields — or a bad answer. */
  costOf(req: Req, plan: Plan, out: Out, route: ModelRoute): { ok: true; costMicroUsd: number; usedTokens: number; log?: Partial<RequestLogFields> } | { ok: false; error: ApiError };
  /** The 200 answer; `headers` (charge and rate-limit) go on it. */
  render(req: Req, plan: Plan, out: Out, route: ModelRoute, headers: Record<string, string>): GatewayResponse;
  /** Taken before the hold, e.g. an Idempotency-Key: may answer at once (a replay or a conflict). */
  claim?(ctx: RouteContext, db: DB): Promise<Claim>;
}

export type Claim =
  | { kind: "go"; done(res: GatewayResponse): Promise<void>; abandon(): Promise<void> }
  | { kind: "answer"; response: GatewayResponse }
  | { kind: "error"; error: ApiError };

const NO_CLAIM: Claim = { kind: "go", done: async () => {}, abandon: async () => {} };

export async function runMetered<Req, Plan, Out>(ctx: RouteContext, spec: MeteredSpec<Req, Plan, Out>): Promise<GatewayResponse> {
  const db = await getDb();
  const billing = routeBilling(db, ctx, spec.route, spec.kinds[0]!);
  const logOnly = async (log: RequestLogFields, error?: ApiError) => {
    await billing.settle(null, { costMicroUsd: 0, log: error ? Object.assign({}, log, { status: error.status, errorCode: error.code }) : log });
    return error ? ctx.error(error) : null;
  };

  const parsed = await spec.parse(ctx);
  if (!parsed.ok) return (await logOnly({ model: parsed.model, status: 400, settlement: "invalid" }, parsed.error))!;
  const { req } = parsed;
  const resolved = await resolveModel(ctx.principal, parsed.model, spec.kinds as ModelKind[], ctx.observe);
  if (!resolved.ok) return (await logOnly({ model: parsed.model, status: 400, settlement: "invalid" }, resolved.error))!;
  const routes = resolved.routes;
  const base = { model: parsed.model, priceSnapshot: routes[0]!.price };
  const priced = spec.holdFor(req, routes);
  if (!priced.ok) return (await logOnly(Object.assign({}, base, { status: 400, settlement: "invalid" as const }), priced.error))!;

  const claim = spec.claim ? await spec.claim(ctx, db) : NO_CLAIM;
  if (claim.kind === "error") return (await logOnly(Object.assign({}, base, { status: 400, settlement: "invalid" as const }), claim.error))!;
  if (claim.kind === "answer") {
    await logOnly(Object.assign({}, base, { status: claim.response.status, settlement: "replayed" as const }));
    return claim.response;
  }
  try {
    const ttlMs = holdTtlMs(routes.reduce((ms, r) => ms + spec.timeoutMs(r), 0));
    const admitted = await admit({
      tokens: priced.tokens,
      admitTokens: tokenAdmission(ctx.principal),
      reserve: async () => {
        const r = await billing.reserve(priced.holdMicroUsd, { ttlMs });
        return r.ok ? r : { ok: false, error: refusalError(r) };
      },
    });
    if (!admitted.ok) {
      await claim.abandon();
      return (await logOnly(Object.assign({}, base, { status: 429, settlement: "rejected" as const }), admitted.error))!;
    }

    const routePlan = routeFor<ModelRoute>(health(), { caller: ctx.principal.accountId });
    const signal = ctx.req.signal;
    const outcome = await failover(routes, (r) => spec.call(r, req, priced.plan, signal), failoverOptions(spec.retry ?? NO_RETRY, routePlan.hooks, signal));
    const route = outcome.route ?? routes[0]!;
    const upstream = {
      upstreamId: route.upstream.id,
      upstreamProtocol: route.upstream.protocol,
      upstreamModel: route.upstreamModel,
      routeTrace: routePlan.trace(),
      // The entry that answered sets the price (an alias's targets may differ).
      priceSnapshot: route.price,
      servedModel: route.modelId !== parsed.model ? route.modelId : null,
    };
    // Log fields and headers below: Object.assign, not spread copies that gain keys (decision 0033).
    /** Nothing served: nothing charged, the hold and the claim released, the fault logged. */
    const fail = async (error: ApiError) => {
      admitted.release(0);
      await claim.abandon();
      await billing.settle(admitted.hold, { costMicroUsd: 0, log: Object.assign({}, base, upstream, { status: error.status, errorCode: error.code, settlement: "upstream_error" as const }) });
      return ctx.error(error);
    };
    if (!outcome.ok) return fail(outcome.error);
    const served = spec.costOf(req, priced.plan, outcome.value, route);
    if (!served.ok) return fail(served.error);
    admitted.release(served.usedTokens);
    const settled = await billing.settle(admitted.hold, { costMicroUsd: served.costMicroUsd, log: Object.assign({}, base, upstream, served.log, { status: 200, settlement: "completed" as const }) });
    // x-gateway-model: the model that served and whose price was charged (an alias's target).
    const res = spec.render(req, priced.plan, outcome.value, route, Object.assign(chargeHeaders(settled), admitted.headers, { "x-gateway-model": route.modelId }));
    await claim.done(res);
    return res;
  } catch (err) {
    // Whatever went wrong, an Idempotency-Key must not stay "in progress".
    await claim.abandon().catch(() => {});
    throw err;
  }
}
