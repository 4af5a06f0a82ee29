import { describe, expect, it } from "vitest";
import { parseImageRequest } from "./image-request";

describe("parseImageRequest", () => {
  it("takes the documented fields and leaves the rest", () => {
    const r = parseImageRequest({ model: "img", prompt: "a cat", quality: "high", size: "1536x1024", n: 1, response_format: "b64_json", extra: 1 });
    expect(r).toEqual({ ok: true, value: { model: "img", prompt: "a cat", quality: "high", size: "1536x1024" } });
  });

  it("accepts any size string (it means automatic) and output formats", () => {
    expect(parseImageRequest({ model: "m", prompt: "p", size: "999x3" }).ok).toBe(true);
    expect(parseImageRequest({ model: "m", prompt: "p", size: "auto", output_format: "webp" }).ok).toBe(true);
  });

  it.each([
    [{ prompt: "p" }, "model"],
    [{ model: "m" }, "prompt"],
    [{ model: "m", prompt: "   " }, "prompt"],
    [{ model: "m", prompt: 5 }, "prompt"],
    [{ model: "m", prompt: "p".repeat(32_001) }, "prompt"],
    [{ model: "m", prompt: "p", n: 2 }, "n"],
    [{ model: "m", prompt: "p", n: 0 }, "n"],
    [{ model: "m", prompt: "p", n: "1" }, "n"],
    [{ model: "m", prompt: "p", quality: 3 }, "quality"],
    [{ model: "m", prompt: "p", size: 1024 }, "size"],
    [{ model: "m", prompt: "p", response_format: "url" }, "response_format"],
    [{ model: "m", prompt: "p", output_format: "gif" }, "output_format"],
    [{ model: "m", prompt: "p", stream: "yes" }, "stream"],
    [{ model: "m", prompt: "p", stream: true, partial_images: 4 }, "partial_images"],
    [{ model: "m", prompt: "p", partial_images: 2 }, "partial_images"],
  ])("rejects %j naming %s", (body, param) => {
    const r = parseImageRequest(body);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ status: 400, code: "invalid_request", param });
    expect(r.error.message).toContain(param);
  });
});
