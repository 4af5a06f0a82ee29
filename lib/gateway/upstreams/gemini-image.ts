/**
 * Google's image models on the `gemini` protocol (docs/images.md): `gemini-*-image*` through
 * POST {baseUrl}/v1beta/models/{model}:generateContent with `responseModalities: ["IMAGE"]`,
 * the size as `imageConfig.aspectRatio`, an edit's images as `inlineData` parts before the
 * prompt. The image is the first `inlineData` part of the answer; the usage is `usageMetadata`
 * by modality. What generateContent cannot take (a mask, `input_fidelity`, a transparent
 * background, JPEG or WebP output, streaming) is a 400 naming it. Imagen's `:predict` below.
 * @see Gemini API reference: generateContent, image generation, Imagen
 */
import { z } from "zod";
import { badAnswer, errors, type Outcome } from "../errors";
import { sniffImage } from "../media/image-dimensions";
import { autoSize, type ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult } from "../media/image-result";
import type { ImageUsage } from "../media/image-usage";
import type { ModelRoute } from "../model-route";
import { joinUrl, postJson } from "./http";
import type { ImageCallOptions } from "./openai-image";

const ASPECT: Record<string, string> = { "1024x1024": "1:1", "1536x1024": "3:2", "1024x1536": "2:3" };

const modalityCounts = z.array(z.looseObject({ modality: z.string().optional(), tokenCount: z.number().int().nonnegative().optional() })).optional();
const answerSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(z.looseObject({ inlineData: z.looseObject({ mimeType: z.string().optional(), data: z.string() }).optional() })).optional() }).optional(),
        finishReason: z.string().optional(),
      }),
    )
    .optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().int().nonnegative().optional(),
      candidatesTokenCount: z.number().int().nonnegative().optional(),
      thoughtsTokenCount: z.number().int().nonnegative().optional(),
      promptTokensDetails: modalityCounts,
      candidatesTokensDetails: modalityCounts,
    })
    .optional(),
});

/** The fields generateContent has no counterpart for, or null when it can take the request. */
export function geminiImageRefusal(req: ImageRequest): { message: string; param: string } | null {
  if (req.stream) return { message: "`stream` is not supported by this model: ask without it.", param: "stream" };
  if (req.edit?.mask) return { message: "This model edits from the prompt and takes no `mask`.", param: "mask" };
  if (req.edit?.inputFidelity) return { message: "`input_fidelity` is not supported by this model.", param: "input_fidelity" };
  if (req.background === "transparent") return { message: "This model cannot make a transparent `background`.", param: "background" };
  if (req.outputFormat && req.outputFormat !== "png") return { message: 'This model only produces PNG: `output_format` must be "png".', param: "output_format" };
  return null;
}

export async function geminiImage(route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: ImageCallOptions): Promise<Outcome<ImageResult>> {
  const refusal = geminiImageRefusal(req);
  if (refusal) return { ok: false, error: errors.invalidRequest(refusal.message, refusal.param), retryable: false };
  const parts: Record<string, unknown>[] = (req.edit?.images ?? []).map((f) => ({ inlineData: { mimeType: `image/${f.format}`, data: f.bytes.toString("base64") } }));
  parts.push({ text: req.prompt });
  const generationConfig: Record<string, unknown> = { responseModalities: ["IMAGE"] };
  // "auto" with every listed size priced lets the model choose; otherwise the size's aspect.
  if (!(plan.requestedSize === "auto" && plan.sizes.length === 3)) generationConfig.imageConfig = { aspectRatio: ASPECT[autoSize(plan, req.prompt)] };
  const res = await postJson({
    url: joinUrl(route.upstream.baseUrl, `v1beta/models/${encodeURIComponent(route.upstreamModel)}:generateContent`),
    headers: route.upstream.apiKey ? { "x-goog-api-key": route.upstream.apiKey } : {},
    body: { contents: [{ role: "user", parts }], generationConfig },
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    secret: route.upstream.apiKey,
  });
  if (!res.ok) return res;
  const a = answerSchema.safeParse(res.value);
  if (!a.success) return badAnswer("The upstream answered without a usable image: not a generateContent answer.");
  const candidate = a.data.candidates?.[0];
  const inline = candidate?.content?.parts?.find((p) => p.inlineData?.mimeType?.startsWith("image/"))?.inlineData;
  if (!inline) {
    const why = a.data.promptFeedback?.blockReason ?? candidate?.finishReason;
    // A refusal of the prompt (safety) is the client's to change: a 400 naming it, not a retry.
    if (why && why !== "STOP") return { ok: false, error: errors.invalidRequest(`The model made no image (${why}).`, "prompt"), retryable: false };
    return badAnswer("The upstream answered without a usable image: no inline image part.");
  }
  const info = sniffImage(Buffer.from(inline.data, "base64"));
  if (!info) return badAnswer("The upstream answered without a usable image: the data is not a PNG, JPEG or WebP image.");
  return { ok: true, value: { b64: inline.data, ...info, usage: geminiImageUsage(a.data.usageMetadata) ?? undefined } };
}

/** usageMetadata by modality: the prompt's text and images, the answer's images; text out and thoughts as text output. */
export function geminiImageUsage(u: z.infer<typeof answerSchema>["usageMetadata"]): ImageUsage | null {
  if (!u || u.promptTokenCount === undefined || u.candidatesTokenCount === undefined) return null;
  const count = (list: typeof u.promptTokensDetails, modality: string) => list?.filter((d) => d.modality === modality).reduce((n, d) => n + (d.tokenCount ?? 0), 0) ?? 0;
  const imageIn = count(u.promptTokensDetails, "IMAGE");
  const textOut = count(u.candidatesTokensDetails, "TEXT");
  return {
    textInputTokens: Math.max(0, u.promptTokenCount - imageIn),
    imageInputTokens: imageIn,
    imageOutputTokens: u.candidatesTokensDetails ? count(u.candidatesTokensDetails, "IMAGE") : Math.max(0, u.candidatesTokenCount - textOut),
    textOutputTokens: textOut + (u.thoughtsTokenCount ?? 0),
  };
}

/** Imagen's aspect ratios have no 3:2: the wide and tall sizes are asked as 4:3 and 3:4 (the produced size is what is charged). */
const IMAGEN_ASPECT: Record<string, string> = { "1024x1024": "1:1", "1536x1024": "4:3", "1024x1536": "3:4" };

const predictSchema = z.looseObject({
  predictions: z.array(z.looseObject({ bytesBase64Encoded: z.string().optional(), mimeType: z.string().optional(), raiFilteredReason: z.string().optional() })).optional(),
});

/**
 * Imagen (`imagen-4.0-*`) through POST {baseUrl}/v1beta/models/{model}:predict, one sample;
 * priced per image (it reports no usage). It only generates: an edit is a 400 naming `image`.
 */
export function imagenRefusal(req: ImageRequest): { message: string; param: string } | null {
  return req.edit ? { message: "This model only generates: it takes no `image` to edit.", param: "image" } : geminiImageRefusal(req);
}

export async function imagenImage(route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: ImageCallOptions): Promise<Outcome<ImageResult>> {
  const refusal = imagenRefusal(req);
  if (refusal) return { ok: false, error: errors.invalidRequest(refusal.message, refusal.param), retryable: false };
  const res = await postJson({
    url: joinUrl(route.upstream.baseUrl, `v1beta/models/${encodeURIComponent(route.upstreamModel)}:predict`),
    headers: route.upstream.apiKey ? { "x-goog-api-key": route.upstream.apiKey } : {},
    body: { instances: [{ prompt: req.prompt }], parameters: { sampleCount: 1, aspectRatio: IMAGEN_ASPECT[autoSize(plan, req.prompt)] } },
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    secret: route.upstream.apiKey,
  });
  if (!res.ok) return res;
  const a = predictSchema.safeParse(res.value);
  const p = a.success ? a.data.predictions?.[0] : undefined;
  if (!p?.bytesBase64Encoded) {
    // Imagen drops a filtered image from `predictions` (or names the reason when asked to).
    if (a.success) return { ok: false, error: errors.invalidRequest(`The model made no image (${p?.raiFilteredReason ?? "filtered by the vendor's safety rules"}).`, "prompt"), retryable: false };
    return badAnswer("The upstream answered without a usable image: not a predict answer.");
  }
  const info = sniffImage(Buffer.from(p.bytesBase64Encoded, "base64"));
  if (!info) return badAnswer("The upstream answered without a usable image: the data is not a PNG, JPEG or WebP image.");
  return { ok: true, value: { b64: p.bytesBase64Encoded, ...info } };
}
