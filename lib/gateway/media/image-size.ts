/**
 * The three sizes the spec lists, and how an automatic choice is made when the client sends no
 * size or another value (the spec: "the aspect ratio is chosen automatically").
 */

export const IMAGE_SIZES = ["1024x1024", "1536x1024", "1024x1536"] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];

export function isImageSize(s: unknown): s is ImageSize {
  return typeof s === "string" && (IMAGE_SIZES as readonly string[]).includes(s);
}

const RATIO: Record<ImageSize, number> = { "1024x1024": 1, "1536x1024": 1.5, "1024x1536": 2 / 3 };

/** The listed size whose aspect ratio is closest to width:height (compared on a log scale). */
export function nearestImageSize(width: number, height: number, among: readonly ImageSize[] = IMAGE_SIZES): ImageSize {
  const r = Math.log(width / height);
  let best = among[0] ?? "1024x1024";
  for (const s of among) if (Math.abs(Math.log(RATIO[s]) - r) < Math.abs(Math.log(RATIO[best]) - r)) best = s;
  return best;
}

/** "1792x1024" → [1792, 1024]; null for anything else. */
export function parseSize(s: string | undefined): [number, number] | null {
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(s ?? "");
  if (!m) return null;
  const w = Number(m[1]);
  const h = Number(m[2]);
  return w > 0 && h > 0 ? [w, h] : null;
}

const WIDE = /\b(landscape|wide|widescreen|panorama|panoramic|horizon|banner|skyline|scenery|cinematic)\b/i;
const TALL = /\b(portrait|tall|poster|phone wallpaper|vertical|full[- ]body|tower|skyscraper|waterfall)\b/i;

/**
 * The gateway's automatic choice: the aspect the prompt asks for in words, else square,
 * always among the sizes the model is priced for.
 */
export function chooseAutoSize(prompt: string, among: readonly ImageSize[] = IMAGE_SIZES): ImageSize {
  const want: ImageSize = WIDE.test(prompt) ? "1536x1024" : TALL.test(prompt) ? "1024x1536" : "1024x1024";
  if (among.includes(want)) return want;
  if (among.includes("1024x1024")) return "1024x1024";
  return among[0] ?? "1024x1024";
}
