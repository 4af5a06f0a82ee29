import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "../../../tests/fakes/openai-video-upstream";
import type { ModelRoute } from "../model-route";
import type { VideoJob } from "./video-types";
import { openaiVideo } from "./openai-video";

let fake: FakeOpenAIVideoUpstream;
let route: ModelRoute;
beforeAll(async () => {
  fake = await startFakeOpenAIVideoUpstream();
  route = {
    rowId: "mdl_1",
    modelId: "vid-a",
    kind: "video",
    ownedBy: "test",
    defaultMaxTokens: null,
    strict: false,
    priority: 0,
    weight: 1,
    family: "t2v",
    upstreamModel: "sora-2",
    price: { perVideo: 250_000 },
    upstream: { id: "vid", protocol: "openai-video", baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 5000 },
  };
});
afterAll(() => fake.close());

const job = (prompt: string, extra: Partial<VideoJob> = {}): VideoJob => ({
  prompt,
  seconds: "10",
  size: "1280x720",
  aspectRatio: null,
  images: [],
  videoUrl: null,
  ...extra,
});

async function bytes(r: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c);
  return Buffer.concat(parts);
}

describe("openai-video adapter", () => {
  it("creates as multipart, polls to completion and streams the MP4", async () => {
    const created = await openaiVideo.create(route, job("a cat on a piano"));
    expect(created).toMatchObject({ ok: true, value: { status: "queued", progress: 0 } });
    if (!created.ok) return;
    const rec = fake.requests.at(-1)!;
    expect(rec.contentType).toMatch(/^multipart\/form-data/);
    expect(rec.fields).toEqual({ model: "sora-2", prompt: "a cat on a piano", seconds: "10", size: "1280x720" });
    expect(rec.authorized).toBe(true);

    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await openaiVideo.get(route, created.value.id);
      if (!s.ok) throw new Error("poll failed");
      seen.push(`${s.value.status}:${s.value.progress}`);
      if (s.value.status === "completed") break;
    }
    expect(seen).toEqual(["in_progress:33", "in_progress:67", "completed:100"]);
    const content = await openaiVideo.content(route, created.value.id);
    if (!content.ok) throw new Error("content failed");
    expect(content.value.contentType).toBe("video/mp4");
    const mp4 = await bytes(content.value.body);
    expect(mp4.subarray(4, 8).toString("latin1")).toBe("ftyp");
  });

  it("reports an upstream failure with its reason", async () => {
    const created = await openaiVideo.create(route, job("x [fail]"));
    if (!created.ok) throw new Error("create failed");
    const s = await openaiVideo.get(route, created.value.id);
    expect(s).toMatchObject({ ok: true, value: { status: "failed", error: "The upstream could not generate this video." } });
  });

  it("sends image inputs as files or URLs", async () => {
    await openaiVideo.create(route, job("one image", { images: [{ kind: "bytes", base64: Buffer.from("png-bytes").toString("base64"), mimeType: "image/png", filename: "a.png" }] }));
    expect(fake.requests.at(-1)!.files).toEqual({ input_reference: 9 });
    await openaiVideo.create(route, job("url image", { images: [{ kind: "url", url: "https://example.com/a.png" }] }));
    expect(fake.requests.at(-1)!.fields["input_reference[image_url]"]).toBe("https://example.com/a.png");
  });

  it("classifies upstream errors as every capability does (errors.ts classifyFailure), without leaking the upstream URL", async () => {
    const r500 = await openaiVideo.create(route, job("[create-500]"));
    expect(r500).toMatchObject({ ok: false, retryable: true, error: { status: 502, type: "upstream_error" } });
    const r400 = await openaiVideo.create(route, job("[create-400]"));
    expect(r400).toMatchObject({ ok: false, retryable: false, error: { status: 400, message: "The upstream rejected the request: Your request was rejected by the safety system." } });
    const bad = await openaiVideo.get({ ...route, upstream: { ...route.upstream, apiKey: "wrong" } }, "video_x");
    // The upstream refusing our key is our configuration, not the caller's key: 502, try the next entry.
    expect(bad).toMatchObject({ ok: false, retryable: false, failover: true, error: { status: 502, type: "upstream_error" } });
    if (!bad.ok) expect(bad.error.message).not.toContain("127.0.0.1");
    const down = await openaiVideo.get({ ...route, upstream: { ...route.upstream, baseUrl: "http://127.0.0.1:1/v1" } }, "video_x");
    expect(down).toMatchObject({ ok: false, retryable: true, error: { status: 502 } });
  });
});
