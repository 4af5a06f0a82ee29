import { describe, expect, it } from "vitest";
import { demoCatalog } from "../config/demo-catalog";
import { usdToMicro } from "../billing/money";
import type { ModelPrice } from "../../db/schema";
import { promptHoldMicro } from "../gateway/media/image-usage";
import { MAX_EDIT_IMAGE_BYTES, MAX_EDIT_IMAGES, MAX_MASK_BYTES } from "../gateway/media/edit-limits";
import { checkEditImages, checkEditMask, checkVideoForm, imageChoices, imagePrice, videoBody, videoFields, videoPrice, type VideoForm } from "./media-forms";

/** The demo catalog's prices as the catalog serves them: integer micro-USD. */
function micro(id: string): ModelPrice {
  const p = demoCatalog.models.find((m) => m.id === id)!.price as ModelPrice;
  return { ...p, perImage: p.perImage && Object.fromEntries(Object.entries(p.perImage).map(([k, v]) => [k, usdToMicro(v)])), perVideo: p.perVideo === undefined ? undefined : usdToMicro(p.perVideo) };
}

describe("image form", () => {
  it("offers the quality tiers and shows the combination's price", () => {
    const p = micro("demo-image");
    expect(imageChoices(p, "high")).toEqual({ qualities: ["low", "medium", "high"], sizes: ["1024x1024", "1536x1024", "1024x1536"] });
    expect(imagePrice(p, "high", "1536x1024")).toEqual({ ok: true, value: 260_000 });
    expect(imagePrice(p, "low", "1024x1024")).toEqual({ ok: true, value: 21_000 });
    // auto holds the priciest size of the quality.
    expect(imagePrice(p, "medium", "auto")).toEqual({ ok: true, value: 95_000 });
  });
  it("a flat-priced model has no quality tiers", () => {
    const p = micro("demo-image-mini");
    expect(imageChoices(p, null).qualities).toEqual([]);
    expect(imagePrice(p, null, "1024x1536")).toEqual({ ok: true, value: 20_000 });
  });
});

describe("image edit form", () => {
  const png = (name: string, size = 1000) => ({ name, size, type: "image/png" });
  it("holds the input images' bound on a token-priced model, as the gateway does", () => {
    const p: ModelPrice = { perImage: { "*": 39_000 }, inputPerMTok: 300_000, imageOutputPerMTok: 30_000_000 };
    const edit = imagePrice(p, null, "1024x1024", "a cat", 64_000);
    expect(edit).toEqual({ ok: true, value: 39_000 + promptHoldMicro(p, "a cat", 64_000) });
    expect(edit.ok && edit.value).toBeGreaterThan((imagePrice(p, null, "1024x1024", "a cat") as { value: number }).value);
    // A per-image price does not depend on the inputs.
    const flat = micro("demo-image");
    expect(imagePrice(flat, "low", "1024x1024", "a cat", 64_000)).toEqual(imagePrice(flat, "low", "1024x1024", "a cat"));
  });
  it("refuses what the gateway would: too many, too large, not an image, a mask not PNG", () => {
    expect(checkEditImages([png("a.png"), { name: "b.jpg", size: 10, type: "image/jpeg" }, { name: "c.webp", size: 10, type: "image/webp" }])).toBeNull();
    expect(checkEditImages(Array.from({ length: MAX_EDIT_IMAGES + 1 }, (_, i) => png(`${i}.png`)))).toMatch(/At most 16 images/);
    expect(checkEditImages([png("big.png", MAX_EDIT_IMAGE_BYTES + 1)])).toMatch(/big\.png is 50 MB; each image may be at most 50 MB/);
    expect(checkEditImages([{ name: "x.gif", size: 10, type: "image/gif" }])).toMatch(/not a PNG, JPEG or WebP/);
    expect(checkEditMask(png("m.png"))).toBeNull();
    expect(checkEditMask({ name: "m.jpg", size: 10, type: "image/jpeg" })).toMatch(/must be a PNG/);
    expect(checkEditMask(png("m.png", MAX_MASK_BYTES + 1))).toMatch(/at most 4 MB/);
    // 50 MB each, but one request carries at most the route's 64 MB.
    expect(checkEditImages([png("a.png", 40 * 1024 * 1024), png("b.png", 30 * 1024 * 1024)])).toMatch(/Together the files are 70 MB; one edit may upload at most 64 MB/);
    expect(checkEditImages([png("a.png", 31 * 1024 * 1024), png("b.png", 31 * 1024 * 1024)], 3 * 1024 * 1024)).toMatch(/at most 64 MB/);
    expect(checkEditMask(png("m.png", 3 * 1024 * 1024), 62 * 1024 * 1024)).toMatch(/at most 64 MB/);
  });
});

const form = (f: Partial<VideoForm>): VideoForm => ({ model: "m", family: "t2v", prompt: "a cat", size: "", aspectRatio: "", seconds: "", imageUrls: "", videoUrl: "", webhook: "", ...f });

describe("video form", () => {
  it("builds the t2v body with the defaults the spec names", () => {
    expect(videoBody(form({}))).toEqual({ model: "m", prompt: "a cat", seconds: "10", size: "1280x720" });
    expect(checkVideoForm(form({}))).toBeNull();
  });
  it("applies the family rules before sending", () => {
    expect(checkVideoForm(form({ prompt: " " }))?.field).toBe("prompt");
    expect(checkVideoForm(form({ family: "i2v" }))).toEqual({ field: "imageUrls", message: "This model takes 1–2 images; 0 given." });
    expect(checkVideoForm(form({ family: "i2v", imageUrls: "https://e.com/a.png", size: "1024x1024" }))?.field).toBe("size");
    expect(checkVideoForm(form({ family: "extend", videoUrl: "nope" }))?.field).toBe("videoUrl");
    expect(checkVideoForm(form({ family: "second", seconds: "15", aspectRatio: "9:16" }))).toBeNull();
    expect(videoBody(form({ family: "second", seconds: "15", aspectRatio: "9:16" }))).toEqual({ model: "m", prompt: "a cat", seconds: "15", aspect_ratio: "9:16" });
    expect(checkVideoForm(form({ webhook: "not a url" }))?.field).toBe("webhook");
    expect(videoFields("third").seconds).toEqual(["8"]);
  });
  it("prices per video or per second", () => {
    expect(videoPrice(micro("demo-video"), form({ family: "t2v" }))).toBe(250_000);
    expect(videoPrice({ perSecond: 10_000 }, form({ family: "second", seconds: "15", aspectRatio: "16:9" }))).toBe(150_000);
    // Veo-style: by resolution and sound, through the gateway's own hold (decision 0065).
    const veo = { perSecond: { "720p": 200_000, "1080p": 200_000, "720p:audio": 400_000, "1080p:audio": 400_000 } };
    const third = (extra: Partial<VideoForm>) => form({ family: "third", seconds: "8", aspectRatio: "16:9", ...extra });
    expect(videoPrice(veo, third({}))).toBe(3_200_000);
    expect(videoPrice(veo, third({ resolution: "720p", audio: "off" }))).toBe(1_600_000);
    expect(videoBody(third({ resolution: "1080p", audio: "off", negativePrompt: " blur ", lastFrameUrl: "https://e.com/z.png" }), veo)).toEqual({
      model: "m", prompt: "a cat", seconds: "8", aspect_ratio: "16:9", resolution: "1080p", generate_audio: false, negative_prompt: "blur", last_frame: "https://e.com/z.png",
    });
    expect(videoFields("third", veo)).toMatchObject({ resolutions: ["720p", "1080p"], audio: true, lastFrame: true });
    expect(videoPrice(veo, third({ resolution: "4k" }))).toBeNull();
  });
});
