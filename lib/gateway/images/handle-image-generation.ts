/**
 * POST /v1/images/generations: validate, resolve the model, plan quality and size (the price
 * table decides what is allowed), claim the Idempotency-Key, hold the plan's worst case, call
 * the upstream (failover on retryable failures), then charge the price of the quality:size
 * actually produced. Only a successful generation is charged; a failure releases the hold.
 * An image produced for a client that has since gone away is still charged: the upstream
 * was paid for it.
 */
import { getDb, type DB } from "../../../db/client";
import { holdTtlMs } from "../../billing/holds";
import type { BillingPort, RequestLogFields } from "../../billing/port";
import { chargeHeaders, refusalError, routeBilling } from "../billing";
import type { ModelPrice } from "../../../db/schema";
import { resolveModel, type ModelRoute } from "../catalog";
import type { ApiError } from "../errors";
import { header, json, type GatewayResponse } from "../http";
import type { RouteContext } from "../types";
import { health, routeFor } from "../health";
import { tokenAdmission } from "../token-limits";
import { failover, NO_RETRY } from "../upstreams/failover";
import { generateImageWithUpstream, imageTimeoutMs } from "../upstreams/image-upstream";
import { abandonIdempotent, beginIdempotent, completeIdempotent, type IdempotencyClaim } from "../idempotency";
import { imageChargeMicro, planImage, type ImagePlan } from "./image-plan";
import { parseImageRequest, type ImageRequest } from "./image-request";
import { parseSize } from "./image-size";
import { imageResultBody } from "./image-response";

const ROUTE = "/v1/images/generations";

export async function handleImageGeneration(ctx: RouteContext): Promise<GatewayResponse> {
  const db = await getDb();
  const billing = routeBilling(db, ctx, ROUTE);
  let model: string | null = null;
  const invalid = async (error: ApiError) => {
    await logOnly(billing, { model, status: error.status, errorCode: error.code, settlement: "invalid" });
    return ctx.error(error);
  };
  const raw = await ctx.readBody();
  if (!raw.ok) return invalid(raw.error);
  const body = await ctx.readJson();
  if (!body.ok) return invalid(body.error);
  const modelField = (body.value as { model?: unknown } | null)?.model;
  model = typeof modelField === "string" ? modelField : null;

  const parsed = parseImageRequest(body.value);
  if (!parsed.ok) return invalid(parsed.error);
  const req = parsed.value;
  const resolved = await resolveModel(ctx.principal, req.model, ["image"]);
  if (!resolved.ok) return invalid(resolved.error);
  const price = resolved.routes[0]!.price;
  const planned = planImage(price, req);
  if (!planned.ok) return invalid(planned.error);
  const plan = planned.value;
  const log = { model: req.model, priceSnapshot: price };

  const idem = await beginIdempotent(db, {
    accountId: ctx.principal.accountId,
    route: ROUTE,
    key: header(ctx.req, "idempotency-key"),
    body: raw.value,
  });
  if (idem.kind === "error") return invalid(idem.error);
  if (idem.kind === "replay") {
    await logOnly(billing, { ...log, status: idem.response.status, settlement: "replayed" });
    return idem.response;
  }
  const claim = idem.kind === "claimed" ? idem.claim : null;
  try {
    return await generate(ctx, db, billing, { req, plan, price, routes: resolved.routes, claim, log });
  } catch (err) {
    // Whatever went wrong, the key must not stay "in progress" for a day.
    if (claim) await abandonIdempotent(db, claim).catch(() => {});
    throw err;
  }
}

const logOnly = (billing: BillingPort, log: RequestLogFields) => billing.settle(null, { costMicroUsd: 0, log });

async function generate(
  ctx: RouteContext,
  db: DB,
  billing: BillingPort,
  { req, plan, price, routes, claim, log }: {
    req: ImageRequest;
    plan: ImagePlan;
    price: ModelPrice;
    routes: ModelRoute[];
    claim: IdempotencyClaim | null;
    log: { model: string; priceSnapshot: ModelPrice };
  },
): Promise<GatewayResponse> {
  // Tokens per minute and concurrency: an image reports no tokens, so its prompt's byte bound
  // (the bound text holds by) is what it counts; the slot is freed however the call ends.
  const admit = tokenAdmission(ctx.principal);
  const promptTokens = Buffer.byteLength(req.prompt, "utf8");
  const admitted = admit ? await admit(promptTokens) : null;
  if (admitted && !admitted.ok) {
    if (claim) await abandonIdempotent(db, claim);
    await logOnly(billing, { ...log, status: 429, errorCode: admitted.error.code, settlement: "rejected" });
    return ctx.error(admitted.error);
  }
  let used = 0;
  try {
    const res = await generateAdmitted(ctx, db, billing, { req, plan, price, routes, claim, log });
    if (res.status === 200) {
      used = promptTokens;
      Object.assign(res.headers, admitted?.admission.headers);
    }
    return res;
  } finally {
    admitted?.admission.release(used);
  }
}

async function generateAdmitted(
  ctx: RouteContext,
  db: DB,
  billing: BillingPort,
  { req, plan, price, routes, claim, log }: Parameters<typeof generate>[3],
): Promise<GatewayResponse> {
  const budgetMs = routes.reduce((ms, r) => ms + imageTimeoutMs(r), 0);
  const reserved = await billing.reserve(plan.holdMicroUsd, { ttlMs: holdTtlMs(budgetMs) });
  if (!reserved.ok) {
    const error = refusalError(reserved);
    if (claim) await abandonIdempotent(db, claim);
    await logOnly(billing, { ...log, status: 402, errorCode: error.code, settlement: "rejected" });
    return ctx.error(error);
  }

  const routePlan = routeFor<ModelRoute>(health());
  const outcome = await failover(routes, (r) => generateImageWithUpstream(r, req, plan, ctx.req.signal), { ...NO_RETRY, signal: ctx.req.signal, ...routePlan.hooks });
  const route = outcome.route ?? routes[0]!;
  const upstream = { upstreamId: route.upstream.id, upstreamProtocol: route.upstream.protocol, routeTrace: routePlan.trace() };
  if (!outcome.ok) {
    if (claim) await abandonIdempotent(db, claim);
    await billing.settle(reserved.hold, { costMicroUsd: 0, log: { ...log, ...upstream, status: outcome.error.status, errorCode: outcome.error.code, settlement: "upstream_error" } });
    return ctx.error(outcome.error);
  }

  const image = outcome.value;
  // The size the upstream says it made, else the image's own pixels (an "auto" answer says nothing).
  const reported = parseSize(image.reportedSize) ? image.reportedSize! : null;
  const charge = imageChargeMicro(price, plan, reported ?? { width: image.width, height: image.height });
  const headers = chargeHeaders(await billing.settle(reserved.hold, { costMicroUsd: charge.costMicroUsd, log: { ...log, ...upstream, status: 200, settlement: "completed" } }));
  const res = json(200, imageResultBody(image, reported ?? charge.size, plan.quality), headers);
  if (claim) await completeIdempotent(db, claim, 200, res.body as string);
  return res;
}
