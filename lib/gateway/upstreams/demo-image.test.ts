import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { planImage } from "../media/image-plan";
import { demoImage, renderDemoPng } from "./demo-image";

const price = { perImage: { "*": 10_000 } };
const plan = (size?: string) => {
  const p = planImage(price, { size });
  if (!p.ok) throw new Error(p.error.message);
  return p.value;
};

describe("demo image", () => {
  it("renders a real PNG with the size's aspect ratio", () => {
    for (const [size, w, h] of [
      ["1024x1024", 256, 256],
      ["1536x1024", 384, 256],
      ["1024x1536", 256, 384],
    ] as const) {
      const bytes = renderDemoPng("a red fox in the snow", size);
      expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const png = PNG.sync.read(bytes);
      expect([png.width, png.height]).toEqual([w, h]);
    }
  });

  it("is deterministic per prompt and differs between prompts", () => {
    expect(renderDemoPng("blue ocean", "1024x1024")).toEqual(renderDemoPng("blue ocean", "1024x1024"));
    expect(renderDemoPng("blue ocean", "1024x1024")).not.toEqual(renderDemoPng("green forest", "1024x1024"));
  });

  it("lets colour words steer the palette", () => {
    const png = PNG.sync.read(renderDemoPng("red red red", "1024x1024"));
    let red = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! > png.data[i + 1]! + 40 && png.data[i]! > png.data[i + 2]! + 40) red++;
    expect(red / (png.width * png.height)).toBeGreaterThan(0.2);
  });

  it("picks the aspect automatically when the size is not one of the three, and reports it", () => {
    const r = demoImage({ model: "demo-image", prompt: "a wide mountain landscape" }, plan("800x600"));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toMatchObject({ format: "png", width: 384, height: 256, reportedSize: "1536x1024" });
    const png = PNG.sync.read(Buffer.from(r.value.b64, "base64"));
    expect(png.width).toBe(384);
  });

  it("refuses output formats it cannot make", () => {
    expect(demoImage({ model: "d", prompt: "p", outputFormat: "jpeg" }, plan())).toMatchObject({ ok: false, error: { param: "output_format" } });
  });
});
