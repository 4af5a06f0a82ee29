import { describe, expect, it } from "vitest";
import { chooseAutoSize, isImageSize, nearestImageSize, parseSize } from "./image-size";

describe("image sizes", () => {
  it("knows the three listed sizes", () => {
    expect(["1024x1024", "1536x1024", "1024x1536", "auto", "512x512"].map(isImageSize)).toEqual([true, true, true, false, false]);
  });

  it("maps any dimensions to the nearest listed aspect ratio", () => {
    expect(nearestImageSize(1792, 1024)).toBe("1536x1024");
    expect(nearestImageSize(256, 384)).toBe("1024x1536");
    expect(nearestImageSize(512, 512)).toBe("1024x1024");
    expect(nearestImageSize(1100, 1000)).toBe("1024x1024");
  });

  it("parses WxH", () => {
    expect(parseSize("1792x1024")).toEqual([1792, 1024]);
    expect(parseSize("auto")).toBeNull();
    expect(parseSize("0x5")).toBeNull();
  });

  it("chooses the aspect ratio from the prompt, within the priced sizes", () => {
    expect(chooseAutoSize("a mountain landscape at dawn")).toBe("1536x1024");
    expect(chooseAutoSize("portrait of a fox")).toBe("1024x1536");
    expect(chooseAutoSize("a red apple")).toBe("1024x1024");
    expect(chooseAutoSize("a mountain landscape", ["1024x1024", "1024x1536"])).toBe("1024x1024");
    expect(chooseAutoSize("a red apple", ["1024x1536"])).toBe("1024x1536");
  });
});
