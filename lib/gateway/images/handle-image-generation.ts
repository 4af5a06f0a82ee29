/**
 * POST /v1/images/generations: plan quality and size (the price table decides what is allowed),
 * claim the Idempotency-Key, hold the plan's worst case, call the upstream, then charge the
 * price of the quality:size actually produced. Only a successful generation is charged; a
 * failure releases the hold. An image produced for a client that has since gone away is still
 * charged: the upstream was paid for it. The rest is the pipeline's (runMetered).
 */
import { json, type GatewayResponse } from "../http";
import { idempotencyClaim } from "../idempotency";
import { runMetered, type MeteredSpec } from "../pipeline";
import type { RouteContext } from "../types";
import { generateImageWithUpstream, imageTimeoutMs } from "../upstreams/image-upstream";
import { imageChargeMicro, planImage, type ImagePlan } from "./image-plan";
import { parseImageRequest, type ImageRequest } from "./image-request";
import type { ImageResult } from "./image-result";
import { imageResultBody } from "./image-response";
import { parseSize } from "./image-size";
import type { ModelPrice } from "../../../db/schema";

const ROUTE = "/v1/images/generations";

export const handleImageGeneration = (ctx: RouteContext): Promise<GatewayResponse> => runMetered(ctx, images);

const images: MeteredSpec<ImageRequest, ImagePlan, ImageResult> = {
  route: ROUTE,
  kinds: ["image"],
  async parse(ctx) {
    const raw = await ctx.readBody();
    if (!raw.ok) return { ok: false, error: raw.error, model: null };
    const body = await ctx.readJson();
    if (!body.ok) return { ok: false, error: body.error, model: null };
    const m = (body.value as { model?: unknown } | null)?.model;
    const parsed = parseImageRequest(body.value);
    return parsed.ok ? { ok: true, req: parsed.value, model: parsed.value.model } : { ok: false, error: parsed.error, model: typeof m === "string" ? m : null };
  },
  holdFor(req, routes) {
    // Quality and size are checked against the first entry's price table; an alias's other
    // targets may be dearer: the hold covers the dearest that can price the plan.
    const planned = planImage(routes[0]!.price, req);
    if (!planned.ok) return planned;
    let holdMicroUsd = planned.value.holdMicroUsd;
    for (const r of routes.slice(1)) {
      const other = r.price === routes[0]!.price ? null : planImage(r.price, req);
      if (other?.ok) holdMicroUsd = Math.max(holdMicroUsd, other.value.holdMicroUsd);
    }
    // Tokens per minute and concurrency: an image reports no tokens, so its prompt's byte bound
    // (the bound text holds by) is what it counts.
    return { ok: true, plan: { ...planned.value, holdMicroUsd }, holdMicroUsd, tokens: Buffer.byteLength(req.prompt, "utf8") };
  },
  timeoutMs: imageTimeoutMs,
  call: (route, req, plan, signal) => generateImageWithUpstream(route, req, plan, signal),
  // Charged at the serving entry's price (an alias's target), never above the hold.
  costOf(req, plan, image, route) {
    return { ok: true, costMicroUsd: produced(plan, image, route.price).charge.costMicroUsd, usedTokens: Buffer.byteLength(req.prompt, "utf8") };
  },
  render(_req, plan, image, route, headers) {
    const { reported, charge } = produced(plan, image, route.price);
    return json(200, imageResultBody(image, reported ?? charge.size, plan.quality), headers);
  },
  claim: (ctx, db) => idempotencyClaim(ctx, db, ROUTE),
};

/** The size the upstream says it made, else the image's own pixels (an "auto" answer says nothing), and its price. */
function produced(plan: ImagePlan, image: ImageResult, price: ModelPrice) {
  const reported = parseSize(image.reportedSize) ? image.reportedSize! : null;
  return { reported, charge: imageChargeMicro(price, plan, reported ?? { width: image.width, height: image.height }) };
}
