import { describe, expect, it } from "vitest";
import { demoCatalog } from "../config/demo-catalog";
import { usdToMicro } from "../billing/money";
import type { ModelPrice } from "../../db/schema";
import { checkVideoForm, imageChoices, imagePrice, videoBody, videoFields, videoPrice, type VideoForm } from "./media-forms";

/** The demo catalog's prices as the catalog serves them: integer micro-USD. */
function micro(id: string): ModelPrice {
  const p = demoCatalog.models.find((m) => m.id === id)!.price as ModelPrice;
  return { ...p, perImage: p.perImage && Object.fromEntries(Object.entries(p.perImage).map(([k, v]) => [k, usdToMicro(v)])), perVideo: p.perVideo === undefined ? undefined : usdToMicro(p.perVideo) };
}

describe("image form", () => {
  it("offers the quality tiers and shows the combination's price", () => {
    const p = micro("demo-image");
    expect(imageChoices(p, "high")).toEqual({ qualities: ["low", "medium", "high"], sizes: ["1024x1024", "1536x1024", "1024x1536"] });
    expect(imagePrice(p, "high", "1536x1024")).toEqual({ ok: true, microUsd: 260_000 });
    expect(imagePrice(p, "low", "1024x1024")).toEqual({ ok: true, microUsd: 21_000 });
    // auto holds the priciest size of the quality.
    expect(imagePrice(p, "medium", "auto")).toEqual({ ok: true, microUsd: 95_000 });
  });
  it("a flat-priced model has no quality tiers", () => {
    const p = micro("demo-image-mini");
    expect(imageChoices(p, null).qualities).toEqual([]);
    expect(imagePrice(p, null, "1024x1536")).toEqual({ ok: true, microUsd: 20_000 });
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
    expect(videoPrice(micro("demo-video"), "t2v", "10")).toBe(250_000);
    expect(videoPrice({ perSecond: 10_000 }, "second", "15")).toBe(150_000);
  });
});
