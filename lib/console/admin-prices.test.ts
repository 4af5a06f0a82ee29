/**
 * The admin price editor and the config file validate prices with one schema and one set of
 * rules, so every price a model can be given is one the engine charges.
 */
import { expect, it } from "vitest";
import { priceToMicro } from "../config/apply";
import { priceProblems, priceSchema as configPrice } from "../config/schema";
import { imagePriceMicro } from "../gateway/media/image-plan";
import { checkPrice, checkServes, priceSchema as adminPrice } from "./admin-catalog";

it("refuses a text model with an input price and no output price (it billed output at $0)", () => {
  expect(() => checkPrice("text", priceToMicro({ inputPerMTok: 1 }))).toThrow(/outputPerMTok/);
  expect(priceProblems("text", { inputPerMTok: 1 })).toEqual([{ field: "outputPerMTok", message: "required for text models" }]);
  expect(() => checkPrice("text", priceToMicro({ inputPerMTok: 1, outputPerMTok: 2 }))).not.toThrow();
  expect(() => checkPrice("image", priceToMicro({ perImage: { "*": 0.04 }, reasoningPerMTok: 1 }))).toThrow(/token-class/);
});

it("takes every per-image key the engine looks up, and no key it never matches", () => {
  const cases: [string, string | null, string][] = [
    ["*", null, "1024x1024"],
    ["high:1024x1024", "high", "1024x1024"],
    ["*:1536x1024", null, "1536x1024"],
    ["low:*", "low", "1024x1536"],
  ];
  for (const [key, quality, size] of cases) {
    const price = { perImage: { [key]: 0.05 } };
    expect(adminPrice.safeParse(price).success, key).toBe(true);
    expect(configPrice.safeParse(price).success, key).toBe(true);
    expect(imagePriceMicro(priceToMicro(price), quality, size as "1024x1024"), key).toBe(50_000);
  }
  for (const key of ["1024x1024", "high", "HIGH:1024x1024", "high:1024"]) {
    expect(adminPrice.safeParse({ perImage: { [key]: 0.05 } }).success, key).toBe(false);
    expect(configPrice.safeParse({ perImage: { [key]: 0.05 } }).success, key).toBe(false);
  }
  expect(adminPrice.safeParse({ perToken: 1 }).success).toBe(false); // unknown keys are refused, not dropped
  expect(adminPrice.safeParse({ inputPerMTok: "1.5", outputPerMTok: "2" }).success).toBe(true); // the form sends strings
});

it("refuses a model kind its upstream's protocol cannot serve", () => {
  expect(() => checkServes("anthropic", "image")).toThrow(/cannot serve image/);
  expect(() => checkServes("openai", "image")).not.toThrow();
});
