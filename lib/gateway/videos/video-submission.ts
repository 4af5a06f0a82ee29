/**
 * `POST /v1/videos` bodies: JSON as the spec shows, or multipart/form-data as the official
 * `openai` SDK always sends it (`client.videos.create`). Both become one plain record of
 * fields, with uploaded files as ImageInput bytes, before validation (video-validate.ts).
 */
import { findUnstorableText, unstorableMessage } from "../../validate/text";
import { errors, type ApiError } from "../errors";
import type { ImageInput } from "../../values";
import type { Result } from "../../result";

export interface SubmissionFields {
  /** Text fields and JSON values, as sent. */
  fields: Record<string, unknown>;
  /** Uploaded image files, by field name (`input_reference`, `images`). */
  files: Record<string, ImageFile[]>;
}

export interface ImageFile {
  filename: string;
  mimeType: string;
  size: number;
  bytes: Buffer;
}

export type Parsed<T> = Result<T, ApiError>;

const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function parseSubmission(body: Buffer, contentType: string | undefined): Promise<Parsed<SubmissionFields>> {
  const r = await parseSubmissionFields(body, contentType);
  const bad = r.ok ? findUnstorableText(r.value.fields) : null;
  return bad === null ? r : { ok: false, error: errors.invalidRequest(unstorableMessage(bad), bad || undefined) };
}

async function parseSubmissionFields(body: Buffer, contentType: string | undefined): Promise<Parsed<SubmissionFields>> {
  const ct = (contentType ?? "").toLowerCase();
  if (ct.startsWith("multipart/form-data")) return parseMultipart(body, contentType!);
  if (body.byteLength === 0) return { ok: false, error: errors.invalidRequest("Request body is required (JSON or multipart/form-data).") };
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body));
  } catch {
    return { ok: false, error: errors.invalidRequest("Request body is not valid JSON (send JSON or multipart/form-data).") };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: errors.invalidRequest("Request body must be a JSON object.") };
  }
  return { ok: true, value: { fields: value as Record<string, unknown>, files: {} } };
}

/** `images[]` and `images` are one field; `input_reference[image_url]` becomes a nested object. */
function fieldName(name: string): { base: string; sub: string | null; array: boolean } {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[([A-Za-z0-9_]*)\])?$/.exec(name);
  if (!m) return { base: name, sub: null, array: false };
  return { base: m[1]!, sub: m[2] ? m[2] : null, array: m[2] === "" };
}

async function parseMultipart(body: Buffer, contentType: string): Promise<Parsed<SubmissionFields>> {
  let form: FormData;
  try {
    form = await new Request("http://localhost/", { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(body) }).formData();
  } catch {
    return { ok: false, error: errors.invalidRequest("Request body is not valid multipart/form-data.") };
  }
  const fields: Record<string, unknown> = {};
  const files: Record<string, ImageFile[]> = {};
  for (const [name, value] of form.entries()) {
    const { base, sub, array } = fieldName(name);
    if (typeof value !== "string") {
      const f = value as File;
      (files[base] ??= []).push({ filename: f.name || "image", mimeType: f.type || "application/octet-stream", size: f.size, bytes: Buffer.from(await f.arrayBuffer()) });
      continue;
    }
    if (sub) {
      const obj = (typeof fields[base] === "object" && fields[base] !== null && !Array.isArray(fields[base]) ? fields[base] : {}) as Record<string, unknown>;
      obj[sub] = value;
      fields[base] = obj;
    } else if (array || base === "images" || base === "reference_images") {
      const prev = fields[base];
      fields[base] = Array.isArray(prev) ? [...prev, value] : [value];
    } else {
      fields[base] = value;
    }
  }
  return { ok: true, value: { fields, files } };
}

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Collects image inputs from every accepted spelling; each URL must be http(s) or a data URL. */
export function collectImages(sub: SubmissionFields): Parsed<ImageInput[]> {
  const out: ImageInput[] = [];
  const addValue = (v: unknown, field: string): ApiError | null => {
    if (v === undefined || v === null) return null;
    if (Array.isArray(v)) {
      for (const item of v) {
        const e = addValue(item, field);
        if (e) return e;
      }
      return null;
    }
    if (typeof v === "object") {
      const o = v as Record<string, unknown>;
      const url = o.image_url ?? o.url;
      if (typeof url === "object" && url !== null && typeof (url as { url?: unknown }).url === "string") return addValue((url as { url: string }).url, field);
      if (typeof url !== "string") return errors.invalidRequest(`\`${field}\` items must be image URLs (or {"image_url": "..."}).`, field);
      return addValue(url, field);
    }
    if (typeof v !== "string" || v === "") return errors.invalidRequest(`\`${field}\` must hold image URLs.`, field);
    const data = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)$/i.exec(v);
    if (data) {
      const b64 = data[2]!.replace(/\s+/g, "");
      const size = Math.floor((b64.length * 3) / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0);
      if (size > MAX_IMAGE_BYTES) return errors.invalidRequest(`Each image in \`${field}\` must be at most 5 MiB.`, field);
      out.push({ kind: "bytes", base64: b64, mimeType: data[1]!.toLowerCase(), filename: `image-${out.length + 1}` });
      return null;
    }
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return errors.invalidRequest(`\`${field}\` must hold http(s) image URLs or data: URLs.`, field);
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") return errors.invalidRequest(`\`${field}\` must hold http(s) image URLs or data: URLs.`, field);
    out.push({ kind: "url", url: u.toString() });
    return null;
  };
  for (const field of ["input_reference", "images", "image_urls", "last_frame", "reference_images"]) {
    const from = out.length;
    const e = addValue(sub.fields[field], field);
    if (e) return { ok: false, error: e };
    tagRoles(out, from, field);
  }
  for (const [field, list] of Object.entries(sub.files)) {
    const from = out.length;
    for (const f of list) {
      if (!["input_reference", "images", "image", "last_frame", "reference_images"].includes(field)) {
        return { ok: false, error: errors.invalidRequest(`Unexpected file field \`${field}\`; send images as \`images\`, \`input_reference\`, \`last_frame\` or \`reference_images\`.`, field) };
      }
      if (f.size > MAX_IMAGE_BYTES) return { ok: false, error: errors.invalidRequest(`Each image must be at most 5 MiB (\`${f.filename}\` is ${f.size} bytes).`, field) };
      if (!f.mimeType.startsWith("image/")) return { ok: false, error: errors.invalidRequest(`\`${field}\` files must be images.`, field) };
      out.push({ kind: "bytes", base64: f.bytes.toString("base64"), mimeType: f.mimeType, filename: f.filename });
    }
    tagRoles(out, from, field);
  }
  return { ok: true, value: out };
}

/** `last_frame` and `reference_images` say what their images are for; the other fields are first frames (or the family's images). */
function tagRoles(images: ImageInput[], from: number, field: string): void {
  const role = field === "last_frame" ? "last_frame" : field === "reference_images" ? "reference" : null;
  if (role) for (let i = from; i < images.length; i++) images[i]!.role = role;
}
