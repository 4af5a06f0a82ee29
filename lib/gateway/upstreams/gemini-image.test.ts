import { describe, expect, it } from "vitest";
import { geminiImageRefusal, geminiImageUsage } from "./gemini-image";

describe("Gemini image usage", () => {
  it("splits usageMetadata by modality; thoughts and answer text are text output", () => {
    expect(
      geminiImageUsage({
        promptTokenCount: 270,
        candidatesTokenCount: 1300,
        thoughtsTokenCount: 50,
        promptTokensDetails: [{ modality: "TEXT", tokenCount: 12 }, { modality: "IMAGE", tokenCount: 258 }],
        candidatesTokensDetails: [{ modality: "IMAGE", tokenCount: 1290 }, { modality: "TEXT", tokenCount: 10 }],
      }),
    ).toEqual({ textInputTokens: 12, imageInputTokens: 258, imageOutputTokens: 1290, textOutputTokens: 60 });
    // Without details every answer token is an image token.
    expect(geminiImageUsage({ promptTokenCount: 7, candidatesTokenCount: 1290 })).toEqual({ textInputTokens: 7, imageInputTokens: 0, imageOutputTokens: 1290, textOutputTokens: 0 });
    expect(geminiImageUsage(undefined)).toBeNull();
  });

  it("names the field generateContent cannot take", () => {
    expect(geminiImageRefusal({ model: "m", prompt: "p", background: "transparent" })?.param).toBe("background");
    expect(geminiImageRefusal({ model: "m", prompt: "p", outputFormat: "webp" })?.param).toBe("output_format");
    expect(geminiImageRefusal({ model: "m", prompt: "p", stream: true })?.param).toBe("stream");
    expect(geminiImageRefusal({ model: "m", prompt: "p", outputFormat: "png" })).toBeNull();
  });
});
