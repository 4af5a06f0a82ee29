/**
 * Imagen's wire on the Google surface: `POST /{version}/models/{model}:predict` with
 * `{ instances: [{ prompt }], parameters: { sampleCount, aspectRatio, outputOptions: { mimeType } } }`
 * → `{ predictions: [{ bytesBase64Encoded, mimeType }] }`, as @google/genai's
 * `models.generateImages` and @ai-sdk/google's Imagen model send it, for any image model
 * (docs/images.md). The same plan, hold and charge as /v1/images/generations; only the wire
 * differs. A parameter the gateway cannot honour is a 400 naming it.
 */
import { errors, type ApiError } from "../errors";
import { json } from "../http";
import { runMetered } from "../pipeline";
import type { RouteContext } from "../types";
import { imageSpec } from "./handle-image-generation";
import type { ParsedImageBody } from "./image-metering";
import { parseImageRequest } from "../media/image-request";

const SIZES: Record<string, string> = { "1:1": "1024x1024", "3:2": "1536x1024", "2:3": "1024x1536" };
const FORMATS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function parsePredict(body: unknown, model: string): ParsedImageBody {
  const bad = (param: string, message: string): ParsedImageBody => ({ ok: false, error: errors.invalidRequest(message, param), model });
  if (!isObject(body)) return bad("instances", "The request body must be a JSON object with `instances`.");
  for (const k of Object.keys(body)) if (k !== "instances" && k !== "parameters") return bad(k, `Unknown field \`${k}\`.`);
  const inst = body.instances;
  if (!Array.isArray(inst) || inst.length !== 1 || !isObject(inst[0])) return bad("instances", "`instances` must hold exactly one `{ prompt }`.");
  for (const k of Object.keys(inst[0])) if (k !== "prompt") return bad(`instances[0].${k}`, `\`instances[0].${k}\` is not supported: this endpoint generates from a prompt.`);
  const p = body.parameters ?? {};
  if (!isObject(p)) return bad("parameters", "`parameters` must be an object.");
  const fields: Record<string, unknown> = { model, prompt: inst[0].prompt };
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined || v === null) continue;
    if (k === "sampleCount") {
      if (v !== 1) return bad("parameters.sampleCount", "`parameters.sampleCount` must be 1: one image per request.");
    } else if (k === "aspectRatio") {
      if (typeof v !== "string" || !SIZES[v]) return bad("parameters.aspectRatio", `\`parameters.aspectRatio\` must be one of ${Object.keys(SIZES).join(", ")}.`);
      fields.size = SIZES[v];
    } else if (k === "outputOptions") {
      if (!isObject(v) || Object.keys(v).some((o) => o !== "mimeType") || (v.mimeType !== undefined && !FORMATS[v.mimeType as string]))
        return bad("parameters.outputOptions", '`parameters.outputOptions` takes only `mimeType`: "image/png" or "image/jpeg".');
      if (v.mimeType !== undefined) fields.output_format = FORMATS[v.mimeType as string];
    } else return bad(`parameters.${k}`, `\`parameters.${k}\` is not supported by this gateway.`);
  }
  const parsed = parseImageRequest(fields);
  if (!parsed.ok) return { ok: false, error: rename(parsed.error), model };
  return { ok: true, value: { req: parsed.value, model } };
}

/** The OpenAI field names of a refusal, as this wire calls them. */
function rename(e: ApiError): ApiError {
  return e.param === "prompt" ? { ...e, param: "instances[0].prompt" } : e;
}

export function handleImagenPredict(route: string, model: (ctx: RouteContext) => string) {
  const spec = imageSpec(
    route,
    async (ctx) => {
      const body = await ctx.readJson();
      if (!body.ok) return { ok: false, error: body.error, model: model(ctx) };
      return parsePredict(body.value, model(ctx));
    },
    (image, headers) => json(200, { predictions: [{ bytesBase64Encoded: image.b64, mimeType: `image/${image.format}` }] }, headers),
  );
  return (ctx: RouteContext) => runMetered(ctx, spec);
}
