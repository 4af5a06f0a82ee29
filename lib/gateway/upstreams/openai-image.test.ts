import { PNG } from "pngjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FAKE_API_KEY, startFakeOpenAIMedia, type FakeOpenAIMedia } from "../../../tests/fakes/openai-media-upstream";
import { planImage } from "../media/image-plan";
import type { ModelRoute } from "../model-route";
import { imageTimeoutMs } from "./image-upstream";
import { openaiImage } from "./openai-image";

const full = {
  perImage: Object.fromEntries(
    ["low", "medium", "high"].flatMap((q, qi) => ["1024x1024", "1536x1024", "1024x1536"].map((s, si) => [`${q}:${s}`, 10_000 * (qi + 1) + si])),
  ),
};
let fake: FakeOpenAIMedia;
let route: ModelRoute;
beforeAll(async () => {
  fake = await startFakeOpenAIMedia();
  route = {
    rowId: "mdl_i",
    modelId: "img-a",
    kind: "image",
    family: null,
    ownedBy: "test",
    strict: false,
    priority: 0,
    weight: 1,
    defaultMaxTokens: null,
    upstreamModel: "gpt-image-1",
    price: full,
    upstream: { id: "oa", protocol: "openai", baseUrl: fake.baseUrl, apiKey: FAKE_API_KEY, timeoutMs: null },
  };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  Object.assign(fake.script, { images: "ok", imageSize: undefined, omitImageSize: false });
});

const plan = (price: typeof full, req: { quality?: string; size?: string }) => {
  const p = planImage(price, req);
  if (!p.ok) throw new Error(p.error.message);
  return p.value;
};

describe("openaiImage", () => {
  it("asks for one image of the planned quality and size and returns a checked PNG", async () => {
    const r = await openaiImage(route, { model: "img-a", prompt: "a cat", user: "u" }, plan(full, { quality: "high", size: "1024x1536" }), { timeoutMs: 5000 });
    if (!r.ok) throw new Error(r.error.message);
    expect(fake.requests[0]!.body).toEqual({ model: "gpt-image-1", prompt: "a cat", n: 1, size: "1024x1536", quality: "high", user: "u" });
    expect(r.value).toMatchObject({ format: "png", width: 32, height: 48, reportedSize: "1024x1536" });
    expect(PNG.sync.read(Buffer.from(r.value.b64, "base64")).height).toBe(48);
  });

  it("lets a GPT image upstream choose when every size is priced; picks itself otherwise", async () => {
    await openaiImage(route, { model: "img-a", prompt: "p" }, plan(full, {}), { timeoutMs: 5000 });
    expect(fake.requests[0]!.body.size).toBe("auto");
    const partial = { perImage: { "medium:1024x1024": 1, "medium:1024x1536": 2 } };
    await openaiImage(route, { model: "img-a", prompt: "a tall tower" }, plan(partial, {}), { timeoutMs: 5000 });
    expect(fake.requests[1]!.body.size).toBe("1024x1536");
  });

  it("asks dall-e models for b64_json and never for auto", async () => {
    await openaiImage({ ...route, upstreamModel: "dall-e-3" }, { model: "x", prompt: "p" }, plan({ perImage: { "*": 40_000 } }, {}), { timeoutMs: 5000 });
    expect(fake.requests[0]!.body).toMatchObject({ response_format: "b64_json", size: "1024x1024" });
    expect(fake.requests[0]!.body.quality).toBeUndefined();
  });

  it("reads the produced size from the image when the upstream does not say", async () => {
    fake.script.omitImageSize = true;
    const r = await openaiImage(route, { model: "img-a", prompt: "p" }, plan(full, {}), { timeoutMs: 5000 });
    expect(r.ok && r.value).toMatchObject({ width: 48, height: 32, reportedSize: undefined });
  });

  it("maps failures: 500 retryable, 400 the upstream's own status, hang a 504", async () => {
    fake.script.images = "fail500";
    expect(await openaiImage(route, { model: "m", prompt: "p" }, plan(full, {}), { timeoutMs: 5000 })).toMatchObject({ ok: false, retryable: true, error: { status: 502 } });
    fake.script.images = "fail400";
    expect(await openaiImage(route, { model: "m", prompt: "p" }, plan(full, {}), { timeoutMs: 5000 })).toMatchObject({ ok: false, retryable: false, error: { status: 400, type: "upstream_error" } });
    fake.script.images = "hang";
    expect(await openaiImage(route, { model: "m", prompt: "p" }, plan(full, {}), { timeoutMs: 200 })).toMatchObject({ ok: false, retryable: true, error: { status: 504 } });
  });

  it("waits at least 120 s for an image upstream", () => {
    expect(imageTimeoutMs(route)).toBe(180_000);
    expect(imageTimeoutMs({ ...route, upstream: { ...route.upstream, timeoutMs: 5_000 } })).toBe(120_000);
    expect(imageTimeoutMs({ ...route, upstream: { ...route.upstream, timeoutMs: 300_000 } })).toBe(300_000);
  });
});
