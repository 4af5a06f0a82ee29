/**
 * What both forms of POST /v1/images/generations (JSON and streamed) share: reading the body,
 * the plan and hold, and the charge for what was produced.
 */
import type { ModelPrice } from "../../values";
import type { RequestLogFields } from "../../billing/port";
import { errors, type ApiError, type ParsedRequest } from "../errors";
import type { HoldPlan } from "../pipeline";
import type { Result } from "../../result";
import { imageRefusal } from "../upstreams/image-upstream";
import { mediaUrlMaxBytes } from "../upstreams/inline-media";
import type { ModelRoute } from "../model-route";
import { header } from "../http";
import type { RouteContext } from "../types";
import { parseImageEditRequest } from "./image-edit-request";
import { imageChargeMicro, planImage, type ImagePlan } from "../media/image-plan";
import { parseImageRequest, type ImageRequest } from "../media/image-request";
import type { ImageResult } from "../media/image-result";
import { parseSize } from "../media/image-size";
import { imageTokenCostMicro, promptHoldMicro, tokenPriced } from "../media/image-usage";

export const IMAGES_ROUTE = "/v1/images/generations";
export const EDITS_ROUTE = "/v1/images/edits";

export type ParsedImageBody = ParsedRequest<ImageRequest>;

/** An edit's multipart body, parsed once per request (the dispatch and the pipeline both ask). */
const editForms = new WeakMap<RouteContext, Promise<ParsedImageBody>>();
export function parseEditBody(ctx: RouteContext): Promise<ParsedImageBody> {
  let p = editForms.get(ctx);
  if (!p) {
    p = (async (): Promise<ParsedImageBody> => {
      const raw = await ctx.readBody();
      if (!raw.ok) return { ok: false, error: raw.error, model: null };
      const parsed = await parseImageEditRequest(raw.value, header(ctx.req, "content-type"));
      return parsed.ok ? { ok: true, value: { req: parsed.value, model: parsed.value.model } } : parsed;
    })();
    editForms.set(ctx, p);
  }
  return p;
}

export async function parseImageBody(ctx: RouteContext): Promise<ParsedImageBody> {
  const raw = await ctx.readBody();
  if (!raw.ok) return { ok: false, error: raw.error, model: null };
  const body = await ctx.readJson();
  if (!body.ok) return { ok: false, error: body.error, model: null };
  const m = (body.value as { model?: unknown } | null)?.model;
  const parsed = parseImageRequest(body.value);
  return parsed.ok ? { ok: true, value: { req: parsed.value, model: parsed.value.model } } : { ok: false, error: parsed.error, model: typeof m === "string" ? m : null };
}

/**
 * Quality and size are checked against the first entry's price table; an alias's other targets
 * may be dearer: the hold covers the dearest that can price the plan. A token-priced entry also
 * holds its prompt's worst case (media/image-usage.ts).
 */
export function imageHold(req: ImageRequest, routes: readonly ModelRoute[]): Result<HoldPlan<ImagePlan>, ApiError> {
  const planned = planImage(routes[0]!.price, req);
  if (!planned.ok) return planned;
  // A field no entry's upstream can take is refused before any money moves.
  const refusals = routes.map((r) => imageRefusal(r, req));
  if (refusals.every((r) => r !== null)) return { ok: false, error: errors.invalidRequest(refusals[0]!.message, refusals[0]!.param) };
  // An image URL not yet downloaded (after admission) counts as the largest file it may be.
  const inputBytes = req.edit ? [...req.edit.images, ...(req.edit.mask ? [req.edit.mask] : [])].reduce((n, f) => n + (f.remote ? mediaUrlMaxBytes() : f.bytes.length), 0) : 0;
  let holdMicroUsd = planned.value.holdMicroUsd + promptHoldMicro(routes[0]!.price, req.prompt, inputBytes);
  for (const r of routes.slice(1)) {
    const other = r.price === routes[0]!.price ? null : planImage(r.price, req);
    if (other?.ok) holdMicroUsd = Math.max(holdMicroUsd, other.value.holdMicroUsd + promptHoldMicro(r.price, req.prompt, inputBytes));
  }
  // Tokens per minute and concurrency: an image reports no tokens, so its prompt's byte bound
  // (the bound text holds by) is what it counts.
  return { ok: true, value: { plan: { ...planned.value, holdMicroUsd }, holdMicroUsd, tokens: Buffer.byteLength(req.prompt, "utf8") } };
}

/**
 * A token-priced model is charged the usage the vendor reported, class by class, never above the
 * hold (the log says when it would have been); without usage, the per-image price of what was produced.
 */
export function imageCharge(plan: ImagePlan, image: ImageResult, price: ModelPrice): { costMicroUsd: number; log?: Partial<RequestLogFields> } {
  const perImage = producedSize(plan, image, price).charge.costMicroUsd;
  if (!tokenPriced(price)) return { costMicroUsd: perImage };
  const u = image.usage;
  if (!u) return { costMicroUsd: perImage, log: { usageNote: "the upstream reported no token usage: charged the per-image price" } };
  const exact = imageTokenCostMicro(u, price);
  const log: Partial<RequestLogFields> = { inputTokens: u.textInputTokens + u.imageInputTokens, outputTokens: u.imageOutputTokens + u.textOutputTokens };
  if (exact > plan.holdMicroUsd) log.usageNote = `usage priced at ${exact} micro-USD, above the hold: charged the hold`;
  return { costMicroUsd: Math.min(exact, plan.holdMicroUsd), log };
}

/** The size the upstream says it made, else the image's own pixels (an "auto" answer says nothing), and its price. */
export function producedSize(plan: ImagePlan, image: ImageResult, price: ModelPrice) {
  const reported = parseSize(image.reportedSize) ? image.reportedSize! : null;
  return { reported, charge: imageChargeMicro(price, plan, reported ?? { width: image.width, height: image.height }) };
}
