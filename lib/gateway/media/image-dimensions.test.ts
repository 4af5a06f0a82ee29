import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { sniffImage } from "./image-dimensions";

describe("sniffImage", () => {
  it("reads a PNG's size", () => {
    const png = PNG.sync.write(new PNG({ width: 48, height: 32 }));
    expect(sniffImage(png)).toEqual({ format: "png", width: 48, height: 32 });
  });

  it("reads a baseline JPEG's frame size past APP0", () => {
    const app0 = [0xff, 0xe0, 0x00, 0x10, ...Buffer.from("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0];
    const sof0 = [0xff, 0xc0, 0x00, 0x11, 8, 0x02, 0x00, 0x03, 0x00, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
    const jpg = Uint8Array.from([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9]);
    expect(sniffImage(jpg)).toEqual({ format: "jpeg", width: 768, height: 512 });
  });

  it("reads WebP VP8X and VP8L headers", () => {
    const vp8x = Buffer.alloc(30);
    vp8x.write("RIFF", 0, "latin1");
    vp8x.write("WEBP", 8, "latin1");
    vp8x.write("VP8X", 12, "latin1");
    vp8x.writeUIntLE(1535, 24, 3);
    vp8x.writeUIntLE(1023, 27, 3);
    expect(sniffImage(vp8x)).toEqual({ format: "webp", width: 1536, height: 1024 });
    const vp8l = Buffer.alloc(30);
    vp8l.write("RIFF", 0, "latin1");
    vp8l.write("WEBP", 8, "latin1");
    vp8l.write("VP8L", 12, "latin1");
    vp8l.writeUInt32LE((1023 & 0x3fff) | ((1535 & 0x3fff) << 14), 21);
    expect(sniffImage(vp8l)).toEqual({ format: "webp", width: 1024, height: 1536 });
  });

  it("refuses bytes that are not an image", () => {
    expect(sniffImage(Buffer.from("<html>not an image</html>"))).toBeNull();
    expect(sniffImage(new Uint8Array(0))).toBeNull();
  });
});

describe("sniffImage (formats the image API does not promise)", () => {
  it("refuses a GIF and a truncated PNG", () => {
    const gif = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
    expect(sniffImage(gif)).toBeNull();
    const png = PNG.sync.write(new PNG({ width: 48, height: 32 }));
    expect(sniffImage(png.subarray(0, 12))).toBeNull();
  });
});
