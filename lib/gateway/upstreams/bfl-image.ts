/**
 * Black Forest Labs' FLUX API (protocol `bfl`, docs/images.md), asynchronous, served
 * synchronously on /v1/images/generations and /v1/images/edits:
 *   POST {base}/v1/{model} (x-key) { prompt, width/height or aspect_ratio, output_format,
 *        input_image… } → { id, polling_url, cost, input_mp, output_mp }
 *   GET  polling_url (x-key) → { id, status: Pending | Ready | Request Moderated |
 *        Content Moderated | Error | Task not found, result: { sample } }
 *   GET  result.sample: a signed URL on BFL's delivery host, valid 10 minutes (no key sent).
 * The whole exchange stays within the image timeout; a moderated or failed task produced
 * nothing and is charged nothing. {base} is https://api.bfl.ai unless `baseUrl` says otherwise.
 *
 * How each family takes its size (the produced size is read from the image and priced):
 * FLUX.2 (`flux-2-*`) width × height, multiples of 16, at most 4 MP — the three sizes as they
 * are; FLUX 1.1 [pro] / [dev] width × height, multiples of 32 from 256 to 1440 — 1536 becomes
 * 1440 (1440x960); Kontext and 1.1 [pro] Ultra an `aspect_ratio`.
 */
import { z } from "zod";
import { sleep } from "../../sleep";
import { badAnswer, clientGone, errors, type Outcome } from "../errors";
import { sniffImage } from "../media/image-dimensions";
import { autoSize, type ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult } from "../media/image-result";
import type { ModelRoute } from "../model-route";
import { callUpstream, joinUrl, postJson, readJson } from "./http";
import type { ImageCallOptions } from "./openai-image";

export const BFL_BASE = "https://api.bfl.ai";
/** BFL's own examples poll every half second. */
export const BFL_POLL_INTERVAL_MS = 500;
/** A produced image is at most 4 MP; a PNG of that is well under this. */
const MAX_SAMPLE_BYTES = 50 * 1024 * 1024;

/** BFL's authentication: the key in `x-key`. */
export const xKey = (key: string | null): Record<string, string> => (key ? { "x-key": key } : {});

type Family = { sizing: "pixels"; step: number; max: number; edits: number } | { sizing: "aspect"; edits: number };

/** The family of an endpoint name (`flux-2-pro`, `flux-kontext-max`, `flux-pro-1.1-ultra`, …). */
export function bflFamily(model: string): Family {
  if (/^flux-2-klein/.test(model)) return { sizing: "pixels", step: 16, max: 2048, edits: 4 };
  if (/^flux-2-/.test(model)) return { sizing: "pixels", step: 16, max: 2048, edits: 8 };
  if (/^flux-kontext/.test(model)) return { sizing: "aspect", edits: 1 };
  if (/ultra/.test(model)) return { sizing: "aspect", edits: 0 };
  return { sizing: "pixels", step: 32, max: 1440, edits: 0 };
}

const ASPECT: Record<string, string> = { "1024x1024": "1:1", "1536x1024": "3:2", "1024x1536": "2:3" };
const INPUT_FIELDS = ["input_image", "input_image_2", "input_image_3", "input_image_4", "input_image_5", "input_image_6", "input_image_7", "input_image_8"];

/** What the FLUX API cannot take, asked before the hold, or null. */
export function bflImageRefusal(route: ModelRoute, req: ImageRequest): { message: string; param: string } | null {
  const family = bflFamily(route.upstreamModel);
  if (req.stream) return { message: "`stream` is not supported by this model: ask without it.", param: "stream" };
  if (req.edit) {
    if (family.edits === 0) return { message: "This model only generates: it takes no `image` to edit (use a Kontext or FLUX.2 model).", param: "image" };
    if (req.edit.images.length > family.edits) return { message: `This model edits with at most ${family.edits} image${family.edits === 1 ? "" : "s"}; got ${req.edit.images.length}.`, param: "image" };
    if (req.edit.mask) return { message: "This model edits from the prompt and takes no `mask`.", param: "mask" };
    if (req.edit.inputFidelity) return { message: "`input_fidelity` is not supported by this model.", param: "input_fidelity" };
  }
  if (req.background === "transparent") return { message: "This model cannot make a transparent `background`.", param: "background" };
  if (req.outputFormat === "webp") return { message: 'This model produces PNG or JPEG: `output_format` must be "png" or "jpeg".', param: "output_format" };
  return null;
}

/** The submit body's size fields for the size the plan asks. */
function sizing(family: Family, size: string | null): Record<string, unknown> {
  if (size === null) return {};
  if (family.sizing === "aspect") return { aspect_ratio: ASPECT[size] };
  const [w, h] = size.split("x").map(Number) as [number, number];
  // Scale the long side down to the family's maximum, keeping the aspect, on the family's step.
  const scale = Math.min(1, family.max / Math.max(w, h));
  const snap = (n: number) => Math.max(family.step, Math.floor((n * scale) / family.step) * family.step);
  return { width: snap(w), height: snap(h) };
}

const submitSchema = z.looseObject({ id: z.string().min(1), polling_url: z.string().optional(), cost: z.number().nullish() });
const resultSchema = z.looseObject({
  status: z.string(),
  result: z.looseObject({ sample: z.string().optional() }).nullish(),
  details: z.unknown().optional(),
});

export async function bflImage(route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: ImageCallOptions): Promise<Outcome<ImageResult>> {
  const refusal = bflImageRefusal(route, req);
  if (refusal) return { ok: false, error: errors.invalidRequest(refusal.message, refusal.param), retryable: false };
  const deadline = Date.now() + opts.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const base = (route.upstream.baseUrl || BFL_BASE).replace(/\/+$/, "");
  const key = route.upstream.apiKey;
  const headers = xKey(key);
  const family = bflFamily(route.upstreamModel);
  // An edit with "auto" keeps the input's framing (the vendor's default); a generation picks a size.
  const size = req.edit && plan.requestedSize === "auto" ? null : autoSize(plan, req.prompt);
  const body: Record<string, unknown> = { prompt: req.prompt, ...sizing(family, size), output_format: req.outputFormat ?? "png" };
  req.edit?.images.forEach((f, i) => (body[INPUT_FIELDS[i]!] = f.bytes.toString("base64")));

  const submitted = await postJson({ url: joinUrl(base, `v1/${encodeURIComponent(route.upstreamModel)}`), headers, body, timeoutMs: left(), signal: opts.signal, secret: key });
  if (!submitted.ok) return submitted;
  const task = submitSchema.safeParse(submitted.value);
  if (!task.success) return badAnswer("The upstream answered without a task id.");
  const pollUrl = pollingUrl(base, task.data.id, task.data.polling_url);

  for (;;) {
    if (Date.now() >= deadline) return { ok: false, error: errors.upstreamTimeout(), retryable: false };
    const opened = await callUpstream({ method: "GET", url: pollUrl, headers: { accept: "application/json", ...headers }, timeoutMs: left(), signal: opts.signal, secret: key });
    if (!opened.ok) return opened;
    const json = await readJson(opened.value, opts.signal);
    if (!json.ok) return json;
    const r = resultSchema.safeParse(json.value);
    if (!r.success) return badAnswer("The upstream answered without a task status.");
    switch (r.data.status) {
      case "Ready": {
        if (!r.data.result?.sample) return badAnswer("The upstream's task is ready without an image.");
        return download(r.data.result.sample, left(), opts.signal);
      }
      case "Request Moderated":
      case "Content Moderated":
        // The prompt (or an input image, or what it made) was refused: the client's to change; BFL charges nothing.
        return { ok: false, error: errors.invalidRequest(`The model made no image (${r.data.status.toLowerCase()} by the vendor's content rules).`, req.edit ? "image" : "prompt"), retryable: false };
      case "Pending":
      case "Queued":
      case "Processing":
        await sleep(Math.min(BFL_POLL_INTERVAL_MS, left()), opts.signal);
        if (opts.signal?.aborted) return clientGone();
        continue;
      default:
        // Error, Task not found, Failed: nothing was produced; another entry may do better.
        return { ok: false, error: errors.upstream(`The upstream's task ended "${r.data.status}" without an image.`), retryable: false, failover: true };
    }
  }
}

/**
 * BFL answers a polling URL on a regional host (api.eu2.bfl.ai): the key goes there only when it
 * is the base URL's origin or a host under the base's parent domain; otherwise the base's own
 * get_result is asked. The key never goes to a host the configuration did not name.
 */
export function pollingUrl(base: string, id: string, given: string | undefined): string {
  const own = `${base}/v1/get_result?id=${encodeURIComponent(id)}`;
  if (!given) return own;
  try {
    const b = new URL(base);
    const u = new URL(given);
    if (u.origin === b.origin) return u.toString();
    const parent = b.hostname.split(".").slice(1).join(".");
    if (u.protocol === "https:" && b.protocol === "https:" && parent.includes(".") && u.hostname.endsWith(`.${parent}`)) return u.toString();
  } catch {
    /* the base's own */
  }
  return own;
}

/** The signed sample, fetched without our key (it is on BFL's delivery host), at most MAX_SAMPLE_BYTES. */
async function download(url: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<Outcome<ImageResult>> {
  const opened = await callUpstream({ method: "GET", url, headers: { accept: "image/*" }, timeoutMs, signal });
  if (!opened.ok) return opened.error.status === 400 || opened.error.status === 403 || opened.error.status === 404 ? { ...opened, retryable: false, failover: true } : opened;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const c of opened.value.body as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > MAX_SAMPLE_BYTES) {
        opened.value.body.destroy();
        return badAnswer("The upstream's image is larger than the gateway takes.");
      }
      chunks.push(c);
    }
  } catch {
    return { ok: false, error: errors.upstream("The upstream connection failed."), retryable: true };
  }
  const bytes = Buffer.concat(chunks);
  const info = sniffImage(bytes);
  if (!info) return badAnswer("The upstream answered without a usable image: the sample is not a PNG, JPEG or WebP image.");
  return { ok: true, value: { b64: bytes.toString("base64"), ...info } };
}
