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
import type { BillingPort, RequestLogFields, Reservation } from "../billing/port";
import { chargeHeaders, refusalError, routeBilling } from "./billing";
import { resolveModel } from "./catalog";
import type { ApiError, Outcome, ParsedRequest } from "./errors";
import { health, routeFor } from "./health";
import type { GatewayResponse } from "./http";
import type { ModelRoute } from "./model-route";
import { tokenAdmission, type Admission, type AdmitResult } from "./token-limits";
import type { RouteContext } from "./types";
import { failover, failoverOptions, NO_RETRY, type RetryPolicy } from "./upstreams/failover";
import type { Err, Ok, Result } from "../result";

export interface Admitted<H> {
  hold: H;
  /** Rate-limit headers every answer of this request carries (x-ratelimit-*). */
  headers: Record<string, string>;
  /** Gives back the token reservation beyond `usedTokens` and the concurrency slot; once. */
  release(usedTokens: number): void;
}

/** A refused admission: the error to answer with, and which step refused (the log and a task's answer differ). */
export interface Refused extends Err<ApiError> {
  /** "tokens": tokens per minute or concurrency, 429, nothing held; "money": 402, the token reservation already given back. */
  stage: "tokens" | "money";
  availableMicroUsd?: number;
}

export interface AdmitInput<H> {
  /** The request's worst case in tokens (what the token limits reserve); ignored without limits. */
  tokens: number;
  /** Token and concurrency admission for this principal; undefined = no limits configured. */
  admitTokens?: (tokens: number) => Promise<AdmitResult>;
  /** The money hold of the request's worst case (the billing port's answer; the refusal is mapped here, once). */
  reserve: () => Promise<Reservation<H>>;
}

const NO_HEADERS: Record<string, string> = {};

export async function admit<H>(input: AdmitInput<H>): Promise<Ok<Admitted<H>> | Refused> {
  let admission: Admission | null = null;
  if (input.admitTokens) {
    const a = await input.admitTokens(input.tokens);
    if (!a.ok) return { ok: false, stage: "tokens", error: a.error };
    admission = a.value;
  }
  const held = await input.reserve();
  if (!held.ok) {
    admission?.release(0);
    return { ok: false, stage: "money", error: refusalError(held), availableMicroUsd: held.reason === "insufficient_balance" ? held.availableMicroUsd : undefined };
  }
  let released = false;
  return {
    ok: true,
    value: {
      hold: held.hold,
      headers: admission?.headers ?? NO_HEADERS,
      release(usedTokens) {
        if (released) return;
        released = true;
        admission?.release(usedTokens);
      },
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
  parse(ctx: RouteContext): Promise<ParsedRequest<Req>>;
  /** The worst case at these entries' prices: what is held, what the token limits count — or a 400. */
  holdFor(req: Req, routes: readonly ModelRoute[]): Result<HoldPlan<Plan>, ApiError>;
  /** One entry's upstream timeout (bounds a hold row's lifetime). */
  timeoutMs(route: ModelRoute): number;
  call(route: ModelRoute, req: Req, plan: Plan, signal: AbortSignal): Promise<Outcome<Out>>;
  /** Retries per entry before failing over (default none). */
  retry?: RetryPolicy;
  /** What the served answer costs, the tokens the limits keep and its log fields — or a bad answer. */
  costOf(req: Req, plan: Plan, out: Out, route: ModelRoute): Result<Served, ApiError>;
  /** The 200 answer; `headers` (charge and rate-limit) go on it. */
  render(req: Req, plan: Plan, out: Out, route: ModelRoute, headers: Record<string, string>): GatewayResponse;
  /** Taken before the hold, e.g. an Idempotency-Key: may answer at once (a replay or a conflict). */
  claim?(ctx: RouteContext, db: DB): Promise<Claim>;
}

/** A request's worst case: what is held, what the token limits count. */
export interface WorstCase {
  holdMicroUsd: number;
  tokens: number;
}

/** The worst case and the plan it is served by. */
export interface HoldPlan<Plan> extends WorstCase {
  plan: Plan;
}

/** A served answer's charge, the tokens the limits keep and its log fields. */
export interface Served {
  costMicroUsd: number;
  usedTokens: number;
  log?: Partial<RequestLogFields>;
}

export type Claim =
  | { kind: "go"; done(res: GatewayResponse): Promise<void>; abandon(): Promise<void> }
  | { kind: "answer"; response: GatewayResponse }
  | { kind: "error"; error: ApiError };

const NO_CLAIM: Claim = { kind: "go", done: async () => {}, abandon: async () => {} };

/** `billing`: another port in place of the route's own (a batch line draws on its batch's hold). */
export async function runMetered<Req, Plan, Out>(ctx: RouteContext, spec: MeteredSpec<Req, Plan, Out>, port?: BillingPort): Promise<GatewayResponse> {
  const db = await getDb();
  const billing = port ?? routeBilling(db, ctx, spec.route, spec.kinds[0]!);
  const logOnly = async (log: RequestLogFields, error?: ApiError) => {
    await billing.settle(null, { costMicroUsd: 0, log: error ? Object.assign({}, log, { status: error.status, errorCode: error.code }) : log });
    return error ? ctx.error(error) : null;
  };

  const parsed = await spec.parse(ctx);
  if (!parsed.ok) return (await logOnly({ model: parsed.model, status: 400, settlement: "invalid" }, parsed.error))!;
  const { req, model } = parsed.value;
  const resolved = await resolveModel(ctx.principal, model, spec.kinds as ModelKind[], ctx.observe);
  if (!resolved.ok) return (await logOnly({ model, status: 400, settlement: "invalid" }, resolved.error))!;
  const routes = resolved.value.routes;
  const base = { model, priceSnapshot: routes[0]!.price };
  const held = spec.holdFor(req, routes);
  if (!held.ok) return (await logOnly(Object.assign({}, base, { status: 400, settlement: "invalid" as const }), held.error))!;
  const priced = held.value;

  const claim = spec.claim ? await spec.claim(ctx, db) : NO_CLAIM;
  if (claim.kind === "error") return (await logOnly(Object.assign({}, base, { status: 400, settlement: "invalid" as const }), claim.error))!;
  if (claim.kind === "answer") {
    await logOnly(Object.assign({}, base, { status: claim.response.status, settlement: "replayed" as const }));
    return claim.response;
  }
  try {
    const ttlMs = holdTtlMs(routes.reduce((ms, r) => ms + spec.timeoutMs(r), 0));
    const admission = await admit({
      tokens: priced.tokens,
      admitTokens: tokenAdmission(ctx.principal),
      reserve: () => billing.reserve(priced.holdMicroUsd, { ttlMs }),
    });
    if (!admission.ok) {
      await claim.abandon();
      return (await logOnly(Object.assign({}, base, { status: 429, settlement: "rejected" as const }), admission.error))!;
    }
    const admitted = admission.value;

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
      servedModel: route.modelId !== model ? route.modelId : null,
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
    const cost = spec.costOf(req, priced.plan, outcome.value, route);
    if (!cost.ok) return fail(cost.error);
    const served = cost.value;
    admitted.release(served.usedTokens);
    // A capability that estimated its usage says so (completed_estimated); otherwise completed.
    const settled = await billing.settle(admitted.hold, { costMicroUsd: served.costMicroUsd, log: Object.assign({}, base, upstream, served.log, { status: 200, settlement: served.log?.settlement ?? "completed" }) });
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
