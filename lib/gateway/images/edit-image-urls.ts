/**
 * The http(s) image URLs of an edit's JSON form (image-edit-request.ts), downloaded after
 * admission (decision 0036): when the first entry is called, once per request whatever the
 * failover entries, through the media fetcher's SSRF guard and caps (inline-media.ts). A URL
 * that cannot be fetched or is not a PNG, JPEG or WebP image is a 400 naming it; the hold is
 * returned whole.
 */
import { errors, type Outcome } from "../errors";
import { downloadImageUrl } from "../upstreams/inline-media";
import { sniffImage } from "../media/image-dimensions";
import { MAX_EDIT_IMAGE_BYTES, MAX_MASK_BYTES, checkMask } from "./image-edit-request";
import type { ImageFile, ImageRequest } from "../media/image-request";

const resolved = new WeakMap<ImageRequest, Promise<Outcome<ImageRequest>>>();

export function withEditImages(req: ImageRequest): Promise<Outcome<ImageRequest>> {
  const edit = req.edit;
  if (!edit || (!edit.images.some((f) => f.remote) && !edit.mask?.remote)) return Promise.resolve({ ok: true, value: req });
  let p = resolved.get(req);
  if (!p) resolved.set(req, (p = fetchAll(req)));
  return p;
}

async function fetchAll(req: ImageRequest): Promise<Outcome<ImageRequest>> {
  const edit = req.edit!;
  const images: ImageFile[] = [];
  for (const f of edit.images) {
    const got = await fetched(f, MAX_EDIT_IMAGE_BYTES, "50 MB");
    if (!got.ok) return got;
    images.push(got.value);
  }
  let mask = edit.mask;
  if (mask) {
    const got = await fetched(mask, MAX_MASK_BYTES, "4 MB");
    if (!got.ok) return got;
    mask = got.value;
    const wrong = checkMask(mask, images[0]!);
    if (wrong) return refuse(wrong.message, edit.mask!.remote?.param ?? wrong.param);
  }
  return { ok: true, value: { ...req, edit: { ...edit, images, mask } } };
}

async function fetched(f: ImageFile, max: number, limit: string): Promise<Outcome<ImageFile>> {
  if (!f.remote) return { ok: true, value: f };
  const got = await downloadImageUrl(f.remote.url, max, limit);
  if (!got.ok) return refuse(`\`${f.remote.param}\`: ${got.error}.`, f.remote.param);
  const info = sniffImage(got.value);
  if (!info) return refuse(`\`${f.remote.param}\` is not a PNG, JPEG or WebP image.`, f.remote.param);
  return { ok: true, value: { bytes: got.value, filename: `${f.remote.param.split(".")[0]}.${info.format}`, ...info } };
}

const refuse = (message: string, param: string): Outcome<never> => ({ ok: false, error: errors.invalidRequest(message, param), retryable: false });
