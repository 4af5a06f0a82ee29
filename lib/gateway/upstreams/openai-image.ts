/**
 * OpenAI images API: POST {baseUrl}/images/generations, answer taken from `data[0].b64_json`.
 * @see OpenAI's Images API reference (generations)
 */
import { z } from "zod";
import { badAnswer, type Outcome } from "../errors";
import { sniffImage } from "../images/image-dimensions";
import { autoSize, type ImagePlan } from "../images/image-plan";
import type { ImageRequest } from "../images/image-request";
import type { ImageResult } from "../images/image-result";
import type { ModelRoute } from "../model-route";
import { postJson } from "./http";
import { openaiEndpoint, type OpenAIEndpoint } from "./openai-endpoint";

const responseSchema = z.looseObject({
  data: z.array(z.looseObject({ b64_json: z.string().optional() })).min(1),
  size: z.string().optional(),
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

  const at = endpoint(route, "images/generations");
  const res = await postJson({
    url: at.url,
    headers: at.headers,
    body,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    secret: route.upstream.apiKey,
  });
  if (!res.ok) return res;
  const parsed = responseSchema.safeParse(res.value);
  const b64 = parsed.success ? parsed.data.data[0]!.b64_json : undefined;
  if (!parsed.success || !b64) return malformed("no b64_json image");
  const info = sniffImage(Buffer.from(b64, "base64"));
  if (!info) return malformed("the data is not a PNG, JPEG or WebP image");
  return { ok: true, value: { b64, ...info, reportedSize: parsed.data.size } };
}

function malformed(why: string) {
  return badAnswer(`The upstream answered without a usable image: ${why}.`);
}
