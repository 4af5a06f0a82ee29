import { describe, expect, it } from "vitest";
import { decodeFloat32Base64, encodeFloat32Base64 } from "./float32-base64";

describe("float32 base64", () => {
  it("matches the documented example", () => {
    // reference/media.md: [1, -2, 0.5] → "AACAPwAAAMAAAAA/"
    expect(encodeFloat32Base64([1, -2, 0.5])).toBe("AACAPwAAAMAAAAA/");
  });

  it("is what the openai SDK's decoder reads (Float32Array over the raw bytes)", () => {
    const vec = [0.0023, -0.0093, 1e-7, 3.5, -0];
    const b64 = encodeFloat32Base64(vec);
    // The SDK's toFloat32Array (openai/internal/utils/base64.js, not exported), verbatim.
    const buf = Buffer.from(b64, "base64");
    const sdk = Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.length / Float32Array.BYTES_PER_ELEMENT));
    expect(sdk).toEqual(Array.from(Float32Array.from(vec)));
  });

  it("round-trips", () => {
    const vec = Float32Array.from({ length: 300 }, (_, i) => Math.sin(i) / 7);
    expect(decodeFloat32Base64(encodeFloat32Base64(vec))).toEqual(vec);
  });

  it("encodes an empty vector as an empty string", () => {
    expect(encodeFloat32Base64([])).toBe("");
    expect(decodeFloat32Base64("")).toEqual(new Float32Array(0));
  });

  it("refuses text that is not whole float32 values", () => {
    expect(decodeFloat32Base64("AACA")).toBeNull(); // 3 bytes
    expect(decodeFloat32Base64("not base64!")).toBeNull();
    expect(decodeFloat32Base64("AACAPw")).toBeNull(); // unpadded
  });
});
