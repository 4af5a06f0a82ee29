import { describe, expect, it } from "vitest";
import type { VideoFamily } from "../../../db/schema";
import { parseSubmission, type SubmissionFields } from "./video-submission";
import { validateSubmission } from "./video-validate";
import { finalCostMicroUsd, holdMicroUsd } from "../../billing/video-price";

const sub = (fields: Record<string, unknown>, files: SubmissionFields["files"] = {}): SubmissionFields => ({ fields, files });
const base = { model: "m", prompt: "a cat", seconds: "10" };
const png = (n = 10) => ({ filename: "a.png", mimeType: "image/png", size: n, bytes: Buffer.alloc(n) });
const url = "https://example.com/a.png";

function check(family: VideoFamily | null, fields: Record<string, unknown>, files: SubmissionFields["files"] = {}) {
  const r = validateSubmission(sub(fields, files), family);
  return r.ok ? "ok" : `${r.error.code}:${r.error.param ?? ""}`;
}

describe("validateSubmission", () => {
  it.each<[string, VideoFamily | null, Record<string, unknown>, string]>([
    ["t2v minimal", "t2v", base, "ok"],
    ["seconds missing", "t2v", { model: "m", prompt: "p" }, "invalid_request:seconds"],
    ["seconds as number", "t2v", { ...base, seconds: 10 }, "invalid_request:seconds"],
    ["seconds 5", "t2v", { ...base, seconds: "5" }, "invalid_request:seconds"],
    ["square on t2v", "t2v", { ...base, size: "1024x1024" }, "ok"],
    ["1080x1920 not on t2v", "t2v", { ...base, size: "1080x1920" }, "invalid_request:size"],
    ["odd size", "t2v", { ...base, size: "640x480" }, "invalid_request:size"],
    ["no prompt", "t2v", { model: "m", seconds: "10" }, "invalid_request:prompt"],
    ["familySlug refused", "t2v", { ...base, familySlug: "x" }, "invalid_request:familySlug"],
    ["images on t2v", "t2v", { ...base, images: [url] }, "invalid_request:images"],
    ["aspect_ratio on t2v", "t2v", { ...base, aspect_ratio: "16:9" }, "invalid_request:aspect_ratio"],
    ["secret too short", "t2v", { ...base, webhook: "https://example.com/h", webhook_secret: "short" }, "invalid_request:webhook_secret"],
    ["secret too long", "t2v", { ...base, webhook: "https://example.com/h", webhook_secret: "x".repeat(129) }, "invalid_request:webhook_secret"],
    ["secret without webhook", "t2v", { ...base, webhook_secret: "12345678" }, "invalid_request:webhook_secret"],
    ["secret 8 chars", "t2v", { ...base, webhook: "https://example.com/h", webhook_secret: "12345678" }, "ok"],
    ["i2v needs an image", "i2v", base, "invalid_request:images"],
    ["i2v one image", "i2v", { ...base, images: [url] }, "ok"],
    ["i2v three images", "i2v", { ...base, images: [url, url, url] }, "invalid_request:images"],
    ["i2v square refused", "i2v", { ...base, images: [url], size: "1024x1024" }, "invalid_request:size"],
    ["i2v portrait 1080p", "i2v", { ...base, images: [url], size: "1080x1920" }, "ok"],
    ["r2v five images", "r2v", { ...base, images: [url, url, url, url, url] }, "ok"],
    ["r2v six images", "r2v", { ...base, images: [url, url, url, url, url, url] }, "invalid_request:images"],
    ["extend ok", "extend", { model: "m", prompt: "p", video_url: "https://example.com/v.mp4" }, "ok"],
    ["extend with seconds", "extend", { model: "m", prompt: "p", seconds: "10", video_url: "https://example.com/v.mp4" }, "invalid_request:seconds"],
    ["extend without video", "extend", { model: "m", prompt: "p" }, "invalid_request:video_url"],
    ["video_url elsewhere", "t2v", { ...base, video_url: "https://example.com/v.mp4" }, "invalid_request:video_url"],
    ["second 15 s", "second", { ...base, seconds: "15", aspect_ratio: "9:16" }, "ok"],
    ["second 8 s", "second", { ...base, seconds: "8" }, "invalid_request:seconds"],
    ["second with size", "second", { ...base, size: "1280x720" }, "invalid_request:size"],
    ["second bad ratio", "second", { ...base, aspect_ratio: "4:5" }, "invalid_request:aspect_ratio"],
    ["third default 8 s", "third", { model: "m", prompt: "p" }, "ok"],
    ["third 10 s", "third", base, "invalid_request:seconds"],
    ["data URL image", "i2v", { ...base, input_reference: "data:image/png;base64,iVBORw0KGgo=" }, "ok"],
    ["image_url object", "i2v", { ...base, input_reference: { image_url: url } }, "ok"],
    ["ftp image", "i2v", { ...base, images: ["ftp://x/a.png"] }, "invalid_request:images"],
    ["NUL in webhook", "t2v", { ...base, webhook: "https://example.com/\u0000" }, "invalid_request:webhook"],
    ["lone surrogate in secret", "t2v", { ...base, webhook: "https://example.com/h", webhook_secret: "abcdefgh\ud800" }, "invalid_request:webhook_secret"],
    ["NUL in video_url", "extend", { model: "m", prompt: "p", video_url: "https://example.com/\u0000.mp4" }, "invalid_request:video_url"],
    ["NUL in prompt", "t2v", { ...base, prompt: "a\u0000b" }, "invalid_request:prompt"],
  ])("%s", (_name, family, fields, expected) => {
    expect(check(family, fields)).toBe(expected);
  });

  it("limits each image to 5 MiB, as files and data URLs", () => {
    expect(check("i2v", base, { images: [png(5 * 1024 * 1024)] })).toBe("ok");
    expect(check("i2v", base, { images: [png(5 * 1024 * 1024 + 1)] })).toBe("invalid_request:images");
    const big = Buffer.alloc(5 * 1024 * 1024 + 3).toString("base64");
    expect(check("i2v", { ...base, images: [`data:image/png;base64,${big}`] })).toBe("invalid_request:images");
  });

  it("builds the job", () => {
    const r = validateSubmission(sub({ ...base, size: "720x1280", webhook: "https://example.com/h", webhook_secret: "s3cret-123" }), "t2v");
    expect(r).toEqual({
      ok: true,
      value: {
        model: "m",
        job: { prompt: "a cat", seconds: "10", size: "720x1280", aspectRatio: null, images: [], videoUrl: null },
        webhook: "https://example.com/h",
        webhookSecret: "s3cret-123",
      },
    });
  });
});

describe("parseSubmission", () => {
  it("reads multipart as the openai SDK sends it", async () => {
    const form = new FormData();
    form.append("model", "demo-video");
    form.append("prompt", "a cat");
    form.append("seconds", "10");
    form.append("input_reference[image_url]", url);
    form.append("images[]", new Blob([Buffer.from("png")], { type: "image/png" }), "x.png");
    const req = new Request("http://x/", { method: "POST", body: form });
    const body = Buffer.from(await req.arrayBuffer());
    const parsed = await parseSubmission(body, req.headers.get("content-type")!);
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.value.fields).toEqual({ model: "demo-video", prompt: "a cat", seconds: "10", input_reference: { image_url: url } });
    expect(parsed.value.files.images?.[0]).toMatchObject({ filename: "x.png", mimeType: "image/png", size: 3 });
  });

  it("refuses malformed bodies", async () => {
    expect((await parseSubmission(Buffer.from("{"), "application/json")).ok).toBe(false);
    expect((await parseSubmission(Buffer.from("[]"), "application/json")).ok).toBe(false);
    expect((await parseSubmission(Buffer.from("x"), "multipart/form-data; boundary=zz")).ok).toBe(false);
  });
});

describe("prices", () => {
  it("holds fixed and duration prices and settles on the real duration", () => {
    expect(holdMicroUsd({ perVideo: 250_000 }, 10)).toBe(250_000);
    expect(holdMicroUsd({ perSecond: 25_000 }, 15)).toBe(375_000);
    expect(finalCostMicroUsd({ perSecond: 25_000 }, 500_000, "12")).toBe(300_000);
    expect(finalCostMicroUsd({ perSecond: 25_000 }, 500_000, "40")).toBe(500_000);
    expect(finalCostMicroUsd({ perVideo: 250_000 }, 250_000, "4")).toBe(250_000);
  });
});
