/**
 * OpenAI images API: POST {baseUrl}/images/generations (JSON) and /images/edits (multipart),
 * answer taken from `data[0].b64_json` with its `usage`, or streamed as SSE events.
 * @see OpenAI's Images API reference (generations, edits, streaming)
 */
import { FormData } from "undici";
import { z } from "zod";
import { badAnswer, errors, type Outcome } from "../errors";
import { sniffImage } from "../media/image-dimensions";
import { autoSize, type ImagePlan } from "../media/image-plan";
import type { ImageFile, ImageRequest } from "../media/image-request";
import type { ImageResult, ImageStream, ImageStreamEvent } from "../media/image-result";
import { openaiImageUsage } from "../media/image-usage";
import type { ModelRoute } from "../model-route";
import { callUpstream, readJson } from "./http";
import { invalidUpstreamEvent, parseJsonEvent, readSse, UpstreamStreamError } from "./sse-reader";
import { openaiEndpoint, type OpenAIEndpoint } from "./openai-endpoint";

const responseSchema = z.looseObject({
  data: z.array(z.looseObject({ b64_json: z.string().optional() })).min(1),
  size: z.string().optional(),
  usage: z.unknown().optional(),
});

export interface ImageCallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
}

export async function openaiImage(
  route: ModelRoute,
  req: ImageRequest,
  plan: ImagePlan,
  opts: ImageCallOptions,
  endpoint: OpenAIEndpoint = openaiEndpoint,
): Promise<Outcome<ImageResult>> {
  const opened = await send(route, req, plan, opts, endpoint, false);
  if (!opened.ok) return opened;
  const res = await readJson(opened.value, opts.signal);
  if (!res.ok) return res;
  const parsed = responseSchema.safeParse(res.value);
  const b64 = parsed.success ? parsed.data.data[0]!.b64_json : undefined;
  if (!parsed.success || !b64) return malformed("no b64_json image");
  const image = checkedImage(b64, parsed.data.size, parsed.data.usage);
  return image ? { ok: true, value: image } : malformed("the data is not a PNG, JPEG or WebP image");
}

/**
 * The streamed form (`stream: true`): OpenAI's `image_generation.partial_image` events, then one
 * `image_generation.completed` with the image and its usage. Opened when the head is 2xx; the
 * events are read as the caller relays them.
 */
export async function openaiImageStream(
  route: ModelRoute,
  req: ImageRequest,
  plan: ImagePlan,
  opts: ImageCallOptions,
  endpoint: OpenAIEndpoint = openaiEndpoint,
): Promise<Outcome<ImageStream>> {
  const res = await send(route, req, plan, opts, endpoint, true);
  if (!res.ok) return res;
  return { ok: true, value: { events: imageEvents(res.value.body, req.edit ? "image_edit" : "image_generation", opts.signal ?? new AbortController().signal) } };
}

/**
 * A generation is JSON to images/generations; an edit is multipart to images/edits, its images
 * as the SDKs send them (`image` for one, `image[]` for several) and the mask as `mask`.
 */
function send(route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: ImageCallOptions, endpoint: OpenAIEndpoint, stream: boolean) {
  const fields = requestBody(route, req, plan);
  if (stream) Object.assign(fields, { stream: true, partial_images: req.partialImages ?? 0 });
  const accept = stream ? "text/event-stream" : "application/json";
  const common = { timeoutMs: opts.timeoutMs, signal: opts.signal, secret: route.upstream.apiKey };
  if (!req.edit) {
    const at = endpoint(route, "images/generations");
    return callUpstream(Object.assign({ url: at.url, headers: Object.assign({ "content-type": "application/json", accept }, at.headers), body: JSON.stringify(fields) }, common));
  }
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, String(v));
  const file = (f: ImageFile) => new Blob([new Uint8Array(f.bytes)], { type: `image/${f.format}` });
  const key = req.edit.images.length === 1 ? "image" : "image[]";
  for (const f of req.edit.images) form.append(key, file(f), f.filename);
  if (req.edit.mask) form.set("mask", file(req.edit.mask), req.edit.mask.filename);
  if (req.edit.inputFidelity) form.set("input_fidelity", req.edit.inputFidelity);
  const at = endpoint(route, "images/edits");
  return callUpstream(Object.assign({ url: at.url, headers: Object.assign({ accept }, at.headers), body: form }, common));
}

async function* imageEvents(body: AsyncIterable<Buffer | Uint8Array>, prefix: string, signal: AbortSignal): AsyncGenerator<ImageStreamEvent> {
  for await (const m of readSse(body, signal)) {
    const e = parseJsonEvent(m.data);
    if (e.type === "error" || e.error) throw new UpstreamStreamError(errors.upstream(`The upstream's image stream failed: ${String((e.error as { message?: unknown })?.message ?? "error")}`.slice(0, 300)), false);
    if (e.type === `${prefix}.partial_image`) {
      if (typeof e.b64_json !== "string" || typeof e.partial_image_index !== "number") throw invalidUpstreamEvent("a partial image without b64_json");
      yield { type: "partial", raw: e };
    } else if (e.type === `${prefix}.completed`) {
      const image = typeof e.b64_json === "string" ? checkedImage(e.b64_json, typeof e.size === "string" ? e.size : undefined, e.usage) : null;
      if (!image) throw invalidUpstreamEvent("a completed event without a PNG, JPEG or WebP image");
      yield { type: "completed", raw: e, image };
      return;
    }
    // Other event types (none documented today) are not the client's business.
  }
  throw invalidUpstreamEvent(`the stream ended before ${prefix}.completed`);
}

function requestBody(route: ModelRoute, req: ImageRequest, plan: ImagePlan): Record<string, unknown> {
  // dall-e models default to URLs and know no "auto" size; GPT image models always answer b64_json.
  const dalle = /^dall-e/i.test(route.upstreamModel);
  const body: Record<string, unknown> = {
    model: route.upstreamModel,
    prompt: req.prompt,
    n: 1,
    // Let the upstream pick the aspect only when every size it may pick is priced.
    size: plan.requestedSize === "auto" && plan.sizes.length === 3 && !dalle ? "auto" : autoSize(plan, req.prompt),
  };
  if (plan.quality !== null) body.quality = plan.quality;
  if (dalle) body.response_format = "b64_json";
  if (req.outputFormat) body.output_format = req.outputFormat;
  if (req.background) body.background = req.background;
  if (req.user) body.user = req.user;
  return body;
}

/** The image checked to be one, with the size and usage the upstream reported. */
function checkedImage(b64: string, reportedSize: string | undefined, usage: unknown): ImageResult | null {
  const info = sniffImage(Buffer.from(b64, "base64"));
  return info ? { b64, ...info, reportedSize, usage: openaiImageUsage(usage) ?? undefined } : null;
}

function malformed(why: string) {
  return badAnswer(`The upstream answered without a usable image: ${why}.`);
}
