import { describe, expect, it } from "vitest";
import type { ModelPrice } from "../../../db/schema";
import { imageChargeMicro, imagePriceMicro, planImage, qualityTiers } from "./image-plan";

// The spec's documented model: 0.021–0.26 USD by quality and size (micro-USD).
const documented: ModelPrice = {
  perImage: {
    "low:1024x1024": 21_000,
    "low:1536x1024": 31_000,
    "low:1024x1536": 31_000,
    "medium:1024x1024": 63_000,
    "medium:1536x1024": 94_000,
    "medium:1024x1536": 94_000,
    "high:1024x1024": 167_000,
    "high:1536x1024": 260_000,
    "high:1024x1536": 250_000,
  },
};
const flat: ModelPrice = { perImage: { "*": 20_000 } };
const partial: ModelPrice = { perImage: { "low:1024x1024": 21_000, "medium:1024x1024": 63_000, "high:1536x1024": 260_000 } };

const plan = (price: ModelPrice, req: { quality?: string; size?: string }) => {
  const r = planImage(price, req);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe("image pricing", () => {
  it("reads the tiers from the table", () => {
    expect(qualityTiers(documented)).toEqual(["low", "medium", "high"]);
    expect(qualityTiers(flat)).toEqual([]);
  });

  it.each([
    ["low", "1024x1024", 21_000],
    ["medium", "1536x1024", 94_000],
    ["high", "1536x1024", 260_000],
    ["high", "1024x1536", 250_000],
  ])("holds the exact price of %s:%s", (quality, size, micro) => {
    expect(plan(documented, { quality, size })).toEqual({ quality, requestedSize: size, sizes: [size], holdMicroUsd: micro });
  });

  it("defaults quality to medium, and treats auto as the default", () => {
    expect(plan(documented, { size: "1024x1024" }).quality).toBe("medium");
    expect(plan(documented, { quality: "auto", size: "1024x1024" }).holdMicroUsd).toBe(63_000);
  });

  it("holds the quality's highest price when size is omitted or not listed, and charges the size produced", () => {
    for (const size of [undefined, "auto", "512x512", "banana"]) {
      const p = plan(documented, { quality: "high", size });
      expect(p).toMatchObject({ requestedSize: "auto", holdMicroUsd: 260_000 });
      expect(p.sizes).toEqual(["1024x1024", "1536x1024", "1024x1536"]);
      expect(imageChargeMicro(documented, p, "1024x1536")).toEqual({ costMicroUsd: 250_000, size: "1024x1536" });
      expect(imageChargeMicro(documented, p, { width: 256, height: 256 })).toEqual({ costMicroUsd: 167_000, size: "1024x1024" });
    }
  });

  it("prices an unlisted produced size at the nearest listed aspect, and an unknown one at the hold", () => {
    const p = plan(documented, { quality: "medium" });
    expect(imageChargeMicro(documented, p, "1792x1024")).toEqual({ costMicroUsd: 94_000, size: "1536x1024" });
    expect(imageChargeMicro(documented, p, null)).toEqual({ costMicroUsd: 94_000, size: null });
  });

  it("never charges above the hold", () => {
    const p = plan(documented, { quality: "high", size: "1024x1024" });
    expect(imageChargeMicro(documented, p, "1536x1024").costMicroUsd).toBe(167_000);
  });

  it("ignores quality on a flat-priced model", () => {
    expect(plan(flat, { quality: "high", size: "1536x1024" })).toMatchObject({ quality: null, holdMicroUsd: 20_000 });
    expect(plan(flat, {})).toMatchObject({ quality: null, requestedSize: "auto", holdMicroUsd: 20_000 });
    expect(imageChargeMicro(flat, plan(flat, {}), "1024x1536").costMicroUsd).toBe(20_000);
  });

  it("supports one price per quality with quality:*", () => {
    const perQuality: ModelPrice = { perImage: { "low:*": 10_000, "high:*": 40_000 } };
    expect(plan(perQuality, { quality: "high" })).toMatchObject({ holdMicroUsd: 40_000, sizes: ["1024x1024", "1536x1024", "1024x1536"] });
    // No "medium" tier: the first tier is the default.
    expect(plan(perQuality, {}).quality).toBe("low");
    expect(imagePriceMicro(perQuality, "low", "1536x1024")).toBe(10_000);
  });

  it("supports size-only prices with *:size", () => {
    const bySize: ModelPrice = { perImage: { "*:1024x1024": 10_000, "*:1536x1024": 15_000 } };
    expect(qualityTiers(bySize)).toEqual([]);
    expect(plan(bySize, { quality: "high" })).toMatchObject({ quality: null, sizes: ["1024x1024", "1536x1024"], holdMicroUsd: 15_000 });
    expect(plan(bySize, { size: "1024x1024" }).holdMicroUsd).toBe(10_000);
  });

  it("keeps auto within the sizes a partial table prices", () => {
    expect(plan(partial, { quality: "high" })).toMatchObject({ sizes: ["1536x1024"], holdMicroUsd: 260_000 });
  });

  it("rejects an unknown quality and an unpriced explicit size, naming the field", () => {
    const q = planImage(documented, { quality: "ultra" });
    expect(q).toMatchObject({ ok: false, error: { status: 400, param: "quality" } });
    if (!q.ok) expect(q.error.message).toContain("low, medium, high");
    expect(planImage(partial, { quality: "low", size: "1536x1024" })).toMatchObject({ ok: false, error: { status: 400, param: "size" } });
  });
});
