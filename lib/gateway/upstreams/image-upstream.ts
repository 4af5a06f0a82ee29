/** Sends an image request to one route's upstream, whichever protocol it speaks. */
import { errors, type Outcome } from "../errors";
import type { ImagePlan } from "../images/image-plan";
import type { ImageRequest } from "../images/image-request";
import type { ImageResult } from "../images/image-result";
import { demoImage } from "./demo-image";
import type { ModelRoute } from "../model-route";
import { openaiImage } from "./openai-image";
import { azureImage } from "./azure-openai";

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
  switch (route.upstream.protocol) {
    case "openai":
      return openaiImage(route, req, plan, { signal, timeoutMs: imageTimeoutMs(route) });
    case "azure-openai":
      return azureImage(route, req, plan, { signal, timeoutMs: imageTimeoutMs(route) });
    case "demo":
      return demoImage(req, plan);
    default:
      return { ok: false, error: errors.upstream("This model's upstream does not serve images."), retryable: false, failover: true };
  }
}
