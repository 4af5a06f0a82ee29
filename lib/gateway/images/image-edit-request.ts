/**
 * `POST /v1/images/edits` bodies: multipart/form-data as the official SDKs send them — `image`
 * (or `image[]`, up to 16 PNG, JPEG or WebP files of at most 50 MB each), an optional PNG `mask`
 * (at most 4 MB, the first image's size), `input_fidelity`, and the generation fields
 * (media/image-request.ts) — or OpenAI's JSON form: `images: [{ image_url }]` and `mask: { image_url }`,
 * each a `data:` URL (decoded here) or an http(s) URL (downloaded after admission,
 * edit-image-urls.ts). Every field is checked here, before any hold; an unknown one is a 400 naming it.
 */
import { errors, type ApiError, type RequestRefusal } from "../errors";
import { sniffImage } from "../media/image-dimensions";
import { parseImageRequest, type ImageFile, type ImageRequest } from "../media/image-request";
import { MEDIA_URLS_PER_REQUEST } from "../upstreams/inline-media";
import type { Ok } from "../../result";
import { MAX_EDIT_IMAGE_BYTES, MAX_EDIT_IMAGES, MAX_MASK_BYTES } from "../media/edit-limits";

export { EDIT_BODY_LIMIT, MAX_EDIT_IMAGE_BYTES, MAX_EDIT_IMAGES, MAX_MASK_BYTES } from "../media/edit-limits";

const TEXT = ["model", "prompt", "n", "size", "quality", "background", "input_fidelity", "output_format", "response_format", "stream", "partial_images", "user"];
const NUMBERS = new Set(["n", "partial_images"]);

type Parsed = Ok<ImageRequest> | RequestRefusal;

export async function parseImageEditRequest(body: Buffer, contentType: string | undefined): Promise<Parsed> {
  if (contentType?.toLowerCase().startsWith("application/json")) return parseJsonEdit(body);
  if (!contentType?.toLowerCase().startsWith("multipart/form-data")) return bad("The request body must be multipart/form-data with the `image` file(s) to edit, or JSON with `images`.", null, "image");
  let form: FormData;
  try {
    form = await new Request("http://localhost/", { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(body) }).formData();
  } catch {
    return bad("Request body is not valid multipart/form-data.", null);
  }
  const model = loggable(form.get("model"));
  const fields: Record<string, unknown> = {};
  for (const [k, v] of form.entries()) {
    if (k === "image" || k === "image[]" || k === "mask") continue;
    if (!TEXT.includes(k)) return bad(`Unknown parameter \`${k}\`.`, model, k);
    if (typeof v !== "string") return bad(`\`${k}\` must be a text field, not a file.`, model, k);
    fields[k] = NUMBERS.has(k) && /^\d+$/.test(v) ? Number(v) : k === "stream" && (v === "true" || v === "false") ? v === "true" : v;
  }
  const parsed = parseImageRequest(fields);
  if (!parsed.ok) return { ok: false, error: parsed.error, model };
  const fidelity = fields.input_fidelity;
  if (fidelity !== undefined && fidelity !== "high" && fidelity !== "low") return bad('`input_fidelity` must be "high" or "low".', model, "input_fidelity");

  const parts = [...form.getAll("image"), ...form.getAll("image[]")];
  if (parts.length === 0) return bad("`image` is required: the image(s) to edit, as file parts.", model, "image");
  if (parts.length > MAX_EDIT_IMAGES) return bad(`At most ${MAX_EDIT_IMAGES} images can be edited at once; got ${parts.length}.`, model, "image");
  const images: ImageFile[] = [];
  for (const part of parts) {
    if (typeof part === "string") return bad("`image` must be a file part.", model, "image");
    const file = await imageFile(part, MAX_EDIT_IMAGE_BYTES, "image", "50 MB", model);
    if (!file.ok) return file;
    images.push(file.value);
  }
  let mask: ImageFile | undefined;
  const m = form.get("mask");
  if (m !== null) {
    if (typeof m === "string") return bad("`mask` must be a file part.", model, "mask");
    const file = await imageFile(m, MAX_MASK_BYTES, "mask", "4 MB", model);
    if (!file.ok) return file;
    const wrong = checkMask(file.value, images[0]!);
    if (wrong) return bad(wrong.message, model, wrong.param);
    mask = file.value;
  }
  return { ok: true, value: { ...parsed.value, edit: { images, mask, inputFidelity: fidelity as "high" | "low" | undefined } } };
}

/** The JSON form: `images: [{ image_url } | { file_id }]`, `mask: { image_url }`, and the other fields. */
function parseJsonEdit(raw: Buffer): Parsed {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    return bad("Request body is not valid JSON.", null);
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return bad("The request body must be a JSON object.", null);
  const b = body as Record<string, unknown>;
  const model = loggable(b.model);
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (k === "images" || k === "mask") continue;
    if (k === "image") return bad("The JSON form takes `images`: an array of `{ \"image_url\": … }`.", model, "image");
    if (!TEXT.includes(k)) return bad(`Unknown parameter \`${k}\`.`, model, k);
    fields[k] = v;
  }
  const parsed = parseImageRequest(fields);
  if (!parsed.ok) return { ok: false, error: parsed.error, model };
  const fidelity = fields.input_fidelity;
  if (fidelity !== undefined && fidelity !== null && fidelity !== "high" && fidelity !== "low") return bad('`input_fidelity` must be "high" or "low".', model, "input_fidelity");

  if (!Array.isArray(b.images) || b.images.length === 0) return bad("`images` is required: an array of `{ \"image_url\": … }`, the image(s) to edit.", model, "images");
  if (b.images.length > MAX_EDIT_IMAGES) return bad(`At most ${MAX_EDIT_IMAGES} images can be edited at once; got ${b.images.length}.`, model, "images");
  const images: ImageFile[] = [];
  for (const [i, ref] of b.images.entries()) {
    const file = imageRef(ref, `images[${i}]`, MAX_EDIT_IMAGE_BYTES, "50 MB", model);
    if (!file.ok) return file;
    images.push(file.value);
  }
  let mask: ImageFile | undefined;
  if (b.mask !== undefined && b.mask !== null) {
    const file = imageRef(b.mask, "mask", MAX_MASK_BYTES, "4 MB", model);
    if (!file.ok) return file;
    mask = file.value;
    const m = checkMask(mask, images[0]!);
    if (m) return bad(m.message, model, m.param);
  }
  const remote = [...images, ...(mask ? [mask] : [])].filter((f) => f.remote).length;
  if (remote > MEDIA_URLS_PER_REQUEST) return bad(`${remote} image URLs need downloading; the gateway downloads at most ${MEDIA_URLS_PER_REQUEST} per request (send the others as data: URLs).`, model, "images");
  return { ok: true, value: { ...parsed.value, edit: { images, mask, inputFidelity: (fidelity ?? undefined) as "high" | "low" | undefined } } };
}

/** The model named in a refusal goes to the request log: text PostgreSQL cannot store (NUL, lone surrogates) is replaced. */
function loggable(v: unknown): string | null {
  return typeof v === "string" ? v.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD") : null;
}

/** One `{ image_url }`: a data: URL decoded and checked now, an http(s) URL kept for after admission. */
function imageRef(ref: unknown, param: string, max: number, limit: string, model: string | null): Ok<ImageFile> | RequestRefusal {
  if (!ref || typeof ref !== "object" || Array.isArray(ref)) return bad(`\`${param}\` must be an object with \`image_url\`.`, model, param);
  const r = ref as Record<string, unknown>;
  if (r.file_id !== undefined) return bad("File ids are not served here: send the image as `image_url` (an https URL or a data: URL).", model, `${param}.file_id`);
  const url = r.image_url;
  if (typeof url !== "string" || url.length === 0) return bad(`\`${param}.image_url\` is required: an https URL or a data: URL.`, model, `${param}.image_url`);
  if (/^https?:\/\//i.test(url)) return { ok: true, value: { bytes: Buffer.alloc(0), filename: `${param}.png`, format: "png", width: 0, height: 0, remote: { url, param: `${param}.image_url` } } };
  const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
  if (!m || !m[2]) return bad(`\`${param}.image_url\` must be an http(s) URL or a base64 data: URL.`, model, `${param}.image_url`);
  const bytes = Buffer.from(m[3]!, "base64");
  if (bytes.length > max) return { ok: false, model, error: { ...errors.payloadTooLarge(max), message: `\`${param}.image_url\` is ${bytes.length} bytes; the limit is ${limit} (${max} bytes).`, param: `${param}.image_url` } };
  const info = sniffImage(bytes);
  if (!info) return bad(`\`${param}.image_url\` must be a PNG, JPEG or WebP image.`, model, `${param}.image_url`);
  return { ok: true, value: { bytes, filename: `${param}.${info.format}`, ...info } };
}

/** The mask's rules, once both it and the first image are known (here, or after their download). */
export function checkMask(mask: ImageFile, first: ImageFile): { message: string; param: string } | null {
  if (mask.remote || first.remote) return null;
  if (mask.format !== "png") return { message: "`mask` must be a PNG with an alpha channel.", param: "mask" };
  if (mask.width !== first.width || mask.height !== first.height)
    return { message: `\`mask\` is ${mask.width}x${mask.height}; it must have the first image's size (${first.width}x${first.height}).`, param: "mask" };
  return null;
}

async function imageFile(part: File, max: number, param: string, limit: string, model: string | null): Promise<Ok<ImageFile> | RequestRefusal> {
  if (part.size > max) return { ok: false, model, error: { ...errors.payloadTooLarge(max), message: `An \`${param}\` file is ${part.size} bytes; the limit is ${limit} (${max} bytes).`, param } };
  const bytes = Buffer.from(await part.arrayBuffer());
  const info = sniffImage(bytes);
  if (!info) return bad(`\`${param}\` must be a PNG, JPEG or WebP image.`, model, param);
  return { ok: true, value: { bytes, filename: part.name || `${param}.${info.format}`, ...info } };
}

function bad(message: string, model: string | null, param?: string): RequestRefusal {
  return { ok: false, model, error: errors.invalidRequest(message, param) };
}
