import { describe, expect, it } from "vitest";
import type { ModelPrice } from "../../values";
import { imageTokenCostMicro, openaiImageUsage, promptHoldMicro } from "./image-usage";

// gpt-image-1's published token prices (micro-USD per million): text in $5, image in $10, image out $40.
const gptImage: ModelPrice = { perImage: { "*": 250_000 }, inputPerMTok: 5_000_000, imageInputPerMTok: 10_000_000, imageOutputPerMTok: 40_000_000 };

describe("image token usage", () => {
  it("reads OpenAI's usage, with and without output details", () => {
    expect(openaiImageUsage({ input_tokens: 50, input_tokens_details: { text_tokens: 10, image_tokens: 40 }, output_tokens: 1056, total_tokens: 1106 })).toEqual({
      textInputTokens: 10,
      imageInputTokens: 40,
      imageOutputTokens: 1056,
      textOutputTokens: 0,
    });
    expect(
      openaiImageUsage({ input_tokens: 12, input_tokens_details: { text_tokens: 12, image_tokens: 0 }, output_tokens: 1200, output_tokens_details: { image_tokens: 1056, text_tokens: 144 } }),
    ).toEqual({ textInputTokens: 12, imageInputTokens: 0, imageOutputTokens: 1056, textOutputTokens: 144 });
    expect(openaiImageUsage(undefined)).toBeNull();
    expect(openaiImageUsage({ input_tokens: -1, output_tokens: 3 })).toBeNull();
  });

  it("prices every class at its own price, rounded up once", () => {
    // 10×5 + 40×10 + 1056×40 = 42 690 micro-USD·M → 0.04269 USD... in micro: (50+400+42240) = 42 690
    expect(imageTokenCostMicro({ textInputTokens: 10, imageInputTokens: 40, imageOutputTokens: 1056, textOutputTokens: 0 }, gptImage)).toBe(42_690);
    // Text output falls back to the image output price; image input to the input price.
    expect(imageTokenCostMicro({ textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0, textOutputTokens: 1 }, gptImage)).toBe(40);
    expect(imageTokenCostMicro({ textInputTokens: 0, imageInputTokens: 3, imageOutputTokens: 0, textOutputTokens: 0 }, { ...gptImage, imageInputPerMTok: undefined })).toBe(15);
    expect(imageTokenCostMicro({ textInputTokens: 1, imageInputTokens: 0, imageOutputTokens: 0, textOutputTokens: 0 }, { ...gptImage, inputPerMTok: 1 })).toBe(1);
  });

  it("holds the prompt at its byte bound only on a token-priced model", () => {
    expect(promptHoldMicro(gptImage, "a cat")).toBe((5 + 256) * 5);
    expect(promptHoldMicro({ perImage: { "*": 1 } }, "a cat")).toBe(0);
  });
});
