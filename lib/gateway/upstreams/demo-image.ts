/**
 * The demo upstream's image model: a real PNG drawn from the prompt. A hash of the prompt picks
 * a background gradient and a few translucent circles and bars; colour words in the prompt
 * ("red", "blue", …) steer the palette. The picture has the chosen size's aspect ratio at a
 * quarter of its pixels per side, so it is a few kilobytes and renders in milliseconds.
 */
import { createHash } from "node:crypto";
import { PNG } from "pngjs";
import { autoSize, type ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult, ImageStream, ImageStreamEvent } from "../media/image-result";
import { errors, type Outcome } from "../errors";
import { parseSize, type ImageSize } from "../media/image-size";

/** Output pixels per side = listed size / SCALE (1024x1024 → 256x256). */
export const DEMO_IMAGE_SCALE = 4;

type RGB = [number, number, number];

const NAMED: Record<string, RGB> = {
  red: [220, 50, 47],
  orange: [240, 140, 30],
  yellow: [245, 215, 60],
  green: [60, 170, 80],
  teal: [30, 150, 150],
  blue: [40, 100, 220],
  purple: [130, 70, 190],
  pink: [240, 120, 170],
  brown: [130, 85, 50],
  black: [20, 20, 25],
  white: [245, 245, 240],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  gold: [212, 175, 55],
  sky: [130, 190, 240],
  sunset: [250, 110, 70],
  forest: [35, 100, 50],
  ocean: [20, 80, 140],
  night: [15, 20, 60],
};

export function demoImage(req: ImageRequest, plan: ImagePlan): Outcome<ImageResult> {
  if (req.outputFormat && req.outputFormat !== "png")
    return { ok: false, error: errors.invalidRequest('This model only produces PNG: `output_format` must be "png".', "output_format"), retryable: false };
  const size = autoSize(plan, req.prompt);
  const png = renderDemoPng(req.prompt, size);
  const info = { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  return { ok: true, value: { b64: png.toString("base64"), format: "png", ...info, reportedSize: size } };
}

export function renderDemoPng(prompt: string, size: ImageSize): Buffer {
  const [w0, h0] = parseSize(size)!;
  const width = Math.round(w0 / DEMO_IMAGE_SCALE);
  const height = Math.round(h0 / DEMO_IMAGE_SCALE);
  const rand = seeded(createHash("sha256").update(prompt).digest());
  const words = prompt.toLowerCase().match(/[a-z]+/g) ?? [];
  const named = words.map((w) => NAMED[w]).filter((c): c is RGB => !!c);
  const pick = (): RGB => (named.length && rand() < 0.7 ? named[Math.floor(rand() * named.length)]! : [rand() * 255, rand() * 255, rand() * 255].map(Math.round) as RGB);

  const top = pick();
  const bottom = mix(pick(), [0, 0, 0], 0.35);
  const shapes = Array.from({ length: 3 + Math.floor(rand() * 4) }, () => ({
    circle: rand() < 0.6,
    x: rand() * width,
    y: rand() * height,
    r: (0.08 + rand() * 0.25) * Math.min(width, height),
    w: (0.15 + rand() * 0.5) * width,
    h: (0.04 + rand() * 0.12) * height,
    color: pick(),
    alpha: 0.45 + rand() * 0.4,
  }));

  const png = new PNG({ width, height, colorType: 2 });
  for (let y = 0; y < height; y++) {
    const bg = mix(top, bottom, y / Math.max(1, height - 1));
    for (let x = 0; x < width; x++) {
      let c: RGB = bg;
      for (const s of shapes) {
        const inside = s.circle
          ? (x - s.x) ** 2 + (y - s.y) ** 2 <= s.r ** 2
          : Math.abs(x - s.x) <= s.w / 2 && Math.abs(y - s.y) <= s.h / 2;
        if (inside) c = mix(c, s.color, s.alpha);
      }
      const i = (y * width + x) << 2;
      png.data[i] = c[0];
      png.data[i + 1] = c[1];
      png.data[i + 2] = c[2];
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png, { colorType: 2 });
}

function mix(a: RGB, b: RGB, t: number): RGB {
  return [Math.round(a[0] + (b[0] - a[0]) * t), Math.round(a[1] + (b[1] - a[1]) * t), Math.round(a[2] + (b[2] - a[2]) * t)];
}

/** A small deterministic generator (mulberry32) seeded from the prompt's hash. */
function seeded(hash: Buffer): () => number {
  let s = hash.readUInt32LE(0);
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The streamed form, in OpenAI's events: `partial_images` previews (the finished picture, as the
 * demo draws it at once), then the image with the usage a GPT image model would report.
 */
export function demoImageStream(req: ImageRequest, plan: ImagePlan): Outcome<ImageStream> {
  const made = demoImage(req, plan);
  if (!made.ok) return made;
  const image = made.value;
  const common = { created_at: Math.floor(Date.now() / 1000), background: "opaque", output_format: "png", quality: plan.quality ?? "auto", size: image.reportedSize ?? `${image.width * DEMO_IMAGE_SCALE}x${image.height * DEMO_IMAGE_SCALE}` };
  const usage = { input_tokens: Math.ceil(req.prompt.length / 4), input_tokens_details: { text_tokens: Math.ceil(req.prompt.length / 4), image_tokens: 0 }, output_tokens: 1056, total_tokens: Math.ceil(req.prompt.length / 4) + 1056 };
  const prefix = req.edit ? "image_edit" : "image_generation";
  async function* events(): AsyncGenerator<ImageStreamEvent> {
    for (let i = 0; i < (req.partialImages ?? 0); i++) yield { type: "partial", raw: { type: `${prefix}.partial_image`, b64_json: image.b64, partial_image_index: i, ...common } };
    yield { type: "completed", raw: { type: `${prefix}.completed`, b64_json: image.b64, ...common, usage }, image: { ...image, usage: { textInputTokens: usage.input_tokens, imageInputTokens: 0, imageOutputTokens: 1056, textOutputTokens: 0 } } };
  }
  return { ok: true, value: { events: events() } };
}
