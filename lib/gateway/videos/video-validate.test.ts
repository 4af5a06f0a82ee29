import { describe, expect, it } from "vitest";
import type { VideoFamily } from "../../../db/schema";
import { parseSubmission, type SubmissionFields } from "./video-submission";
import { validateSubmission } from "./video-validate";
import { finalCost, finalCostMicroUsd, holdMicroUsd, videoPriceProblem } from "../../billing/video-price";

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
    ["second with a size naming a framing", "second", { ...base, size: "1920x1080" }, "ok"],
    ["second with an unknown size", "second", { ...base, size: "1792x1024" }, "invalid_request:size"],
    ["size contradicting aspect_ratio", "second", { ...base, size: "1280x720", aspect_ratio: "9:16" }, "invalid_request:size"],
    ["size contradicting resolution", "third", { model: "m", prompt: "p", size: "1280x720", resolution: "1080p" }, "invalid_request:size"],
    ["third resolution", "third", { model: "m", prompt: "p", resolution: "1080p" }, "ok"],
    ["unknown resolution", "third", { model: "m", prompt: "p", resolution: "900p" }, "invalid_request:resolution"],
    ["resolution on t2v", "t2v", { ...base, resolution: "720p" }, "invalid_request:resolution"],
    ["generate_audio as a form string", "third", { model: "m", prompt: "p", generate_audio: "false" }, "ok"],
    ["generate_audio not a boolean", "third", { model: "m", prompt: "p", generate_audio: "loud" }, "invalid_request:generate_audio"],
    ["negative_prompt not a string", "third", { model: "m", prompt: "p", negative_prompt: 3 }, "invalid_request:negative_prompt"],
    ["first and last frame", "third", { model: "m", prompt: "p", input_reference: url, last_frame: url }, "ok"],
    ["two last frames", "third", { model: "m", prompt: "p", last_frame: [url, url] }, "invalid_request:last_frame"],
    ["references beside the family's images", "third", { model: "m", prompt: "p", reference_images: [url, url, url] }, "ok"],
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
        job: { prompt: "a cat", seconds: "10", size: "720x1280", aspectRatio: null, images: [], videoUrl: null, resolution: "720p", negativePrompt: null, audio: null },
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

  it("prices per second by resolution and sound: the hold is the worst case, the charge what was made", () => {
    const veo = { perSecond: { "720p": 100_000, "720p:audio": 150_000, "1080p": 200_000, "1080p:audio": 400_000 } };
    // Sound unsaid is the model's default (with sound, where that is priced); no resolution: the dearest.
    expect(holdMicroUsd(veo, 8, { resolution: "1080p" })).toBe(3_200_000);
    expect(holdMicroUsd(veo, 8, { resolution: "1080p", audio: false })).toBe(1_600_000);
    expect(holdMicroUsd(veo, 8, {})).toBe(3_200_000);
    // A 1080p request that came back 720p is billed as 720p, and says so.
    expect(finalCost(veo, 3_200_000, { seconds: "8", resolution: "720p" }, { resolution: "1080p" })).toEqual({ costMicroUsd: 1_200_000, pricedAs: "720p:audio" });
    // Nothing reported: what was asked; a longer video than held never costs more than the hold.
    expect(finalCost(veo, 3_200_000, { seconds: null }, { resolution: "1080p" })).toEqual({ costMicroUsd: 3_200_000, pricedAs: "1080p:audio" });
    expect(finalCost(veo, 1_200_000, { seconds: "10", resolution: "720p" }, { resolution: "720p" }).costMicroUsd).toBe(1_200_000);
    expect(videoPriceProblem(veo, { resolution: "4k" })).toMatchObject({ param: "resolution" });
    expect(videoPriceProblem({ perSecond: { "720p": 1 } }, { resolution: "720p", audio: true })).toMatchObject({ param: "generate_audio" });
    expect(videoPriceProblem({ perSecond: 5 }, { resolution: "4k" })).toBeNull();
  });
});
