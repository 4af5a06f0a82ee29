/**
 * POST /v1/images/generations and /v1/images/edits with `stream: true`: the same plan and hold as the JSON form, then
 * OpenAI's server-sent events relayed as the upstream sends them — `partial_images` previews
 * (`image_generation.partial_image`, `image_edit.partial_image`), then the `.completed` event with the image and its
 * usage. The charge is settled from the completed event (media/image-usage.ts), before it is sent; a
 * stream that breaks or a client that leaves before the image is finished is charged nothing.
 */
import { sseEvent, SSE_HEADERS } from "../sse";
import { brokenStream, openAudio, type OpenedAudio } from "../audio/open-audio";
import type { GatewayResponse } from "../http";
import type { RouteContext } from "../types";
import { withEditImages } from "./edit-image-urls";
import { imageTimeoutMs, streamImageWithUpstream } from "../upstreams/image-upstream";
import { imageCharge, imageHold, type ParsedImageBody } from "./image-metering";
import type { ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult, ImageStream } from "../media/image-result";
import type { ModelRoute } from "../model-route";

export async function handleImageStream(ctx: RouteContext, route: string, parse: (ctx: RouteContext) => Promise<ParsedImageBody>): Promise<GatewayResponse> {
  let plan: ImagePlan | null = null;
  const opened = await openAudio<ImageRequest, ImageStream>(ctx, {
    route,
    kind: "image",
    parse,
    holdFor(req, routes) {
      const held = imageHold(req, routes);
      if (held.ok) plan = held.value.plan;
      return held;
    },
    timeoutMs: imageTimeoutMs,
    logBase: () => ({ stream: true }),
    call: async (route, req, signal) => {
      const ready = await withEditImages(req);
      return ready.ok ? streamImageWithUpstream(route, ready.value, plan!, signal) : ready;
    },
  });
  if (!opened.ok) return opened.error;
  const { out, route: served, settle } = opened.value;
  const headers = Object.assign({}, SSE_HEADERS, opened.value.headers);
  return { status: 200, headers, body: relay(out, plan!, served, settle, ctx.req.signal) };
}

type Settle = OpenedAudio<ImageRequest, ImageStream>["settle"];

async function* relay(stream: ImageStream, plan: ImagePlan, route: ModelRoute, settle: Settle, signal: AbortSignal): AsyncGenerator<string> {
  let done: { raw: Record<string, unknown>; image: ImageResult } | null = null;
  let failure: unknown = null;
  try {
    try {
      for await (const e of stream.events) {
        if (e.type === "partial") yield sseEvent(String(e.raw.type), e.raw);
        else done = e;
      }
    } catch (err) {
      if (!signal.aborted) failure = err;
    }
  } finally {
    if (done) {
      const c = imageCharge(plan, done.image, route.price);
      await settle(c.costMicroUsd, Object.assign({}, c.log, { status: 200, settlement: "completed" }));
    } else await settle(0, failure ? brokenStream(failure) : { status: 499, settlement: "client_disconnect" });
  }
  if (done) yield sseEvent(String(done.raw.type), done.raw);
  else if (failure)
    yield sseEvent("error", { type: "error", error: { type: "upstream_error", code: "upstream_error", message: "The upstream's image stream broke off; nothing was charged.", param: null } });
}
