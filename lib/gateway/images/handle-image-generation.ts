/**
 * POST /v1/images/generations: plan quality and size (the price table decides what is allowed),
 * claim the Idempotency-Key, hold the plan's worst case, call the upstream, then charge what was
 * produced (image-metering.ts: the price of the quality:size, or the tokens the vendor reported).
 * Only a successful generation is charged; a failure releases the hold. An image produced for a
 * client that has since gone away is still charged: the upstream was paid for it. The rest is
 * the pipeline's (runMetered). `stream: true` is handle-image-stream.ts's.
 */
import { json, type GatewayResponse } from "../http";
import { idempotencyClaim } from "../idempotency";
import { runMetered, type MeteredSpec } from "../pipeline";
import type { RouteContext } from "../types";
import { withEditImages } from "./edit-image-urls";
import { generateImageWithUpstream, imageTimeoutMs } from "../upstreams/image-upstream";
import { handleImageStream } from "./handle-image-stream";
import { EDITS_ROUTE, IMAGES_ROUTE, imageCharge, imageHold, parseEditBody, parseImageBody, producedSize } from "./image-metering";
import type { ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult } from "../media/image-result";
import { imageResultBody } from "./image-response";

export async function handleImageGeneration(ctx: RouteContext): Promise<GatewayResponse> {
  const body = await ctx.readJson();
  if (body.ok && (body.value as { stream?: unknown } | null)?.stream === true) return handleImageStream(ctx, IMAGES_ROUTE, parseImageBody);
  return runMetered(ctx, generations);
}

/** POST /v1/images/edits: the same, on a multipart body with the images to edit (image-edit-request.ts). */
export async function handleImageEdit(ctx: RouteContext): Promise<GatewayResponse> {
  const parsed = await parseEditBody(ctx);
  if (parsed.ok && parsed.value.req.stream) return handleImageStream(ctx, EDITS_ROUTE, parseEditBody);
  return runMetered(ctx, edits);
}

type ImageSpec = MeteredSpec<ImageRequest, ImagePlan, ImageResult>;
/** The image routes' metered spec; another wire (Imagen's `:predict`, imagen-predict.ts) brings its own parse and render. */
export const imageSpec = (route: string, parse: ImageSpec["parse"], wire?: (image: ImageResult, headers: Record<string, string>) => GatewayResponse): ImageSpec => ({
  route,
  kinds: ["image"],
  parse,
  holdFor: imageHold,
  timeoutMs: imageTimeoutMs,
  // An edit's image URLs are downloaded when the first entry is called (once: withEditImages keeps them).
  call: async (route, req, plan, signal) => {
    const ready = await withEditImages(req);
    return ready.ok ? generateImageWithUpstream(route, ready.value, plan, signal) : ready;
  },
  // Charged at the serving entry's price (an alias's target), never above the hold.
  costOf(req, plan, image, route) {
    return { ok: true, value: { ...imageCharge(plan, image, route.price), usedTokens: Buffer.byteLength(req.prompt, "utf8") } };
  },
  render(_req, plan, image, route, headers) {
    if (wire) return wire(image, headers);
    const { reported, charge } = producedSize(plan, image, route.price);
    return json(200, imageResultBody(image, reported ?? charge.size, plan.quality), headers);
  },
  claim: (ctx, db) => idempotencyClaim(ctx, db, route),
});

const generations = imageSpec(IMAGES_ROUTE, parseImageBody);
const edits = imageSpec(EDITS_ROUTE, parseEditBody);
