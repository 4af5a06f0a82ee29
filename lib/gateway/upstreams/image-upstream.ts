/** Sends an image request to one route's upstream, whichever protocol it speaks. */
import { errors, type Outcome } from "../errors";
import type { ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult, ImageStream } from "../media/image-result";
import { implementation } from "./registry";
import type { ModelRoute } from "../model-route";

/** The spec: generation takes 20–60 s and the client waits at least 120 s; so do we, at least. */
export const MIN_IMAGE_TIMEOUT_MS = 120_000;
export const DEFAULT_IMAGE_TIMEOUT_MS = 180_000;

export function imageTimeoutMs(route: ModelRoute): number {
  return Math.max(route.upstream.timeoutMs ?? DEFAULT_IMAGE_TIMEOUT_MS, MIN_IMAGE_TIMEOUT_MS);
}

export async function generateImageWithUpstream(
  route: ModelRoute,
  req: ImageRequest,
  plan: ImagePlan,
  signal?: AbortSignal,
): Promise<Outcome<ImageResult>> {
  const image = implementation(route.upstream.protocol, "image");
  if (!image) return { ok: false, error: errors.upstream("This model's upstream does not serve images."), retryable: false, failover: true };
  return image(route, req, plan, { signal, timeoutMs: imageTimeoutMs(route) });
}

/** What this route's upstream cannot take of the request (a 400 naming the field, asked before the hold), or null. */
export function imageRefusal(route: ModelRoute, req: ImageRequest): { message: string; param: string } | null {
  return implementation(route.upstream.protocol, "imageRefusal")?.(route, req) ?? null;
}

/** `stream: true`: opened when the upstream's answer starts (docs/images.md). */
export async function streamImageWithUpstream(route: ModelRoute, req: ImageRequest, plan: ImagePlan, signal?: AbortSignal): Promise<Outcome<ImageStream>> {
  const stream = implementation(route.upstream.protocol, "imageStream");
  if (stream) return stream(route, req, plan, { signal, timeoutMs: imageTimeoutMs(route) });
  // An image model whose upstream answers only whole: the client's to change; any other, the next entry's.
  if (implementation(route.upstream.protocol, "image")) return { ok: false, error: errors.invalidRequest("`stream` is not supported by this model: ask without it.", "stream"), retryable: false };
  return { ok: false, error: errors.upstream("This model's upstream does not stream images."), retryable: false, failover: true };
}
