/**
 * The vendor video adapters (gemini-veo, vertex-veo, kling, seedance) against fakes of the vendors'
 * APIs (tests/fakes/video-vendors.ts): what goes on the wire, auth, polling to completion, the
 * download, the vendors' refusals before anything is sent, and failures.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGeminiVeo, startFakeKling, startFakeSeedance, startFakeVertexVeo, type FakeVideoVendor } from "../../../tests/fakes/video-vendors";
import type { ModelRoute, UpstreamInfo } from "../model-route";
import { geminiVeo } from "./gemini-veo";
import { klingToken, klingVideo } from "./kling-video";
import { seedanceVideo } from "./seedance-video";
import { vertexVeo } from "./vertex-veo";
import type { VideoJob, VideoUpstream } from "./video-types";

const MP4 = fs.readFileSync(path.resolve(process.cwd(), "assets/demo-video/1280x720.mp4"));
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]).toString("base64");
const png = (role?: "last_frame" | "reference") => ({ kind: "bytes" as const, base64: PNG, mimeType: "image/png", filename: "a.png", ...(role ? { role } : {}) });

let gemini: Awaited<ReturnType<typeof startFakeGeminiVeo>>;
let vertex: Awaited<ReturnType<typeof startFakeVertexVeo>>;
let kling: Awaited<ReturnType<typeof startFakeKling>>;
let seedance: Awaited<ReturnType<typeof startFakeSeedance>>;

beforeAll(async () => {
  [gemini, vertex, kling, seedance] = await Promise.all([
    startFakeGeminiVeo(),
    startFakeVertexVeo({ project: "acme-video-prod", region: "us-central1" }),
    startFakeKling(),
    startFakeSeedance(),
  ]);
});
afterAll(() => Promise.all([gemini, vertex, kling, seedance].map((f) => f?.close())));

function route(upstreamModel: string, upstream: Partial<UpstreamInfo> & Pick<UpstreamInfo, "protocol">): ModelRoute {
  return {
    rowId: "mdl_1",
    modelId: "v",
    kind: "video",
    ownedBy: "test",
    family: "third",
    defaultMaxTokens: null,
    strict: false,
    priority: 0,
    weight: 1,
    upstreamModel,
    price: { perSecond: { "720p": 100_000 } },
    upstream: { id: "u", baseUrl: "", apiKey: null, timeoutMs: 5000, ...upstream },
  };
}

const job = (extra: Partial<VideoJob> = {}): VideoJob => ({
  prompt: "a lighthouse in a storm",
  seconds: "8",
  size: null,
  aspectRatio: "16:9",
  images: [],
  videoUrl: null,
  resolution: null,
  negativePrompt: null,
  audio: null,
  ...extra,
});

async function bytes(r: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c);
  return Buffer.concat(parts);
}

/** Create, poll to the end, download: what every vendor must do. */
async function runToEnd(adapter: VideoUpstream, r: ModelRoute, j: VideoJob) {
  const prepared = adapter.prepare!(r, j);
  if (!prepared.ok) throw new Error(`refused: ${prepared.error.param}`);
  const created = await adapter.create(r, prepared.value);
  if (!created.ok) throw new Error(`create failed: ${created.error.message}`);
  let v = created.value;
  for (let i = 0; i < 10 && v.status !== "completed" && v.status !== "failed"; i++) {
    const polled = await adapter.get(r, created.value.id);
    if (!polled.ok) throw new Error(`poll failed: ${polled.error.message}`);
    v = polled.value;
  }
  return { id: created.value.id, video: v, job: prepared.value };
}

const lastCreate = (fake: FakeVideoVendor) => fake.requests.filter((q) => q.method === "POST" && !q.path.endsWith("/token") && !q.path.includes("fetchPredictOperation")).at(-1)!;

describe("gemini-veo", () => {
  const r = () => route("veo-3.1-generate-preview", { protocol: "gemini-veo", baseUrl: gemini.baseUrl, apiKey: gemini.apiKey });

  it("sends predictLongRunning with the key, polls the operation, downloads with the key only at Google's origin", async () => {
    const { id, video, job: j } = await runToEnd(geminiVeo, r(), job({ resolution: "1080p", negativePrompt: "rain", images: [png(), png("last_frame")] }));
    expect(j.resolution).toBe("1080p");
    expect(id).toMatch(/^models\/veo-3\.1-generate-preview\/operations\//);
    expect(video).toMatchObject({ status: "completed", progress: 100 });
    const sent = lastCreate(gemini);
    expect(sent.authorized).toBe(true);
    expect(sent.path).toBe("/v1beta/models/veo-3.1-generate-preview:predictLongRunning");
    expect(sent.body).toEqual({
      instances: [{ prompt: "a lighthouse in a storm", image: { inlineData: { mimeType: "image/png", data: PNG } }, lastFrame: { inlineData: { mimeType: "image/png", data: PNG } } }],
      parameters: { aspectRatio: "16:9", resolution: "1080p", durationSeconds: 8, negativePrompt: "rain" },
    });
    const content = await geminiVeo.content(r(), id);
    if (!content.ok) throw new Error(content.error.message);
    expect((await bytes(content.value.body)).equals(MP4)).toBe(true);
    // The redirect target (another origin) never saw the key.
    expect(gemini.mediaRequests.at(-1)!.headers["x-goog-api-key"]).toBeUndefined();
  });

  it("defaults to 720p and refuses what Veo cannot do before sending anything", () => {
    const p = (j: Partial<VideoJob>) => {
      const out = geminiVeo.prepare!(r(), job(j));
      return out.ok ? `ok:${out.value.resolution}` : out.error.param;
    };
    expect(p({})).toBe("ok:720p");
    expect(p({ aspectRatio: "1:1" })).toBe("aspect_ratio");
    expect(p({ aspectRatio: null, size: "1024x1024" })).toBe("size");
    expect(p({ audio: false })).toBe("generate_audio");
    expect(p({ images: [{ kind: "url", url: "https://example.com/a.png" }] })).toBe("input_reference");
    expect(p({ images: [png("last_frame")] })).toBe("last_frame");
    expect(p({ images: [png("reference"), png("reference"), png("reference"), png("reference")] })).toBe("reference_images");
  });

  it("reports a failed operation and a filtered one as failures with the reason", async () => {
    expect((await runToEnd(geminiVeo, r(), job({ prompt: "[fail] x" }))).video).toMatchObject({ status: "failed", error: expect.stringContaining("internal error") });
    expect((await runToEnd(geminiVeo, r(), job({ prompt: "[rai] x" }))).video).toMatchObject({ status: "failed", error: expect.stringContaining("safety filter") });
  });

  it("a wrong key is the vendor's refusal, not a task", async () => {
    const created = await geminiVeo.create(route("veo-3.1-generate-preview", { protocol: "gemini-veo", baseUrl: gemini.baseUrl, apiKey: "AIza-wrong" }), job());
    expect(created.ok).toBe(false);
    expect(gemini.requests.at(-1)!.authorized).toBe(false);
  });
});

describe("vertex-veo", () => {
  const r = () =>
    route("veo-3.1-generate-001", {
      protocol: "vertex-veo",
      baseUrl: vertex.baseUrl,
      settings: { project: "acme-video-prod", region: "us-central1" },
      credentials: { serviceAccount: vertex.serviceAccount },
    });

  it("signs in with the service account, sends Vertex's body, fetches the operation and decodes the inline video", async () => {
    const { id, video } = await runToEnd(vertexVeo, r(), job({ audio: false, images: [png()] }));
    expect(video.status).toBe("completed");
    const token = vertex.requests.find((q) => q.path === "/token")!;
    expect(token.authorized).toBe(true);
    const sent = lastCreate(vertex);
    expect(sent.path).toBe("/v1/projects/acme-video-prod/locations/us-central1/publishers/google/models/veo-3.1-generate-001:predictLongRunning");
    expect(sent.body).toEqual({
      instances: [{ prompt: "a lighthouse in a storm", image: { bytesBase64Encoded: PNG, mimeType: "image/png" } }],
      parameters: { aspectRatio: "16:9", resolution: "720p", durationSeconds: 8, sampleCount: 1, generateAudio: false },
    });
    const content = await vertexVeo.content(r(), id);
    if (!content.ok) throw new Error(content.error.message);
    expect((await bytes(content.value.body)).equals(MP4)).toBe(true);
  });

  it("sends generateAudio (required of Veo 3) when the client leaves sound unsaid", async () => {
    await runToEnd(vertexVeo, r(), job());
    expect(lastCreate(vertex).body.parameters.generateAudio).toBe(true);
  });
});

describe("kling", () => {
  const r = () => route("kling-v2-1-master", { protocol: "kling", baseUrl: kling.baseUrl, credentials: { accessKeyId: kling.accessKey, secretAccessKey: kling.secretKey } });

  it("signs a JWT from the access and secret key, text2video in pro mode for 1080p, reports the duration", async () => {
    const { id, video } = await runToEnd(klingVideo, r(), job({ seconds: "10", resolution: "1080p", aspectRatio: "9:16", negativePrompt: "blur", audio: true }));
    expect(id).toMatch(/^text2video:/);
    expect(video).toMatchObject({ status: "completed", seconds: "10" });
    const sent = lastCreate(kling);
    expect(sent.authorized).toBe(true);
    expect(sent.body).toEqual({ model_name: "kling-v2-1-master", prompt: "a lighthouse in a storm", mode: "pro", duration: "10", aspect_ratio: "9:16", negative_prompt: "blur", sound: "on" });
    const content = await klingVideo.content(r(), id);
    if (!content.ok) throw new Error(content.error.message);
    expect((await bytes(content.value.body)).equals(MP4)).toBe(true);
    expect(kling.mediaRequests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it("image2video with first and last frame as bare base64, polled on its own endpoint", async () => {
    const { id, video } = await runToEnd(klingVideo, r(), job({ seconds: "5", images: [png(), png("last_frame")] }));
    expect(id).toMatch(/^image2video:/);
    expect(video.status).toBe("completed");
    expect(lastCreate(kling).body).toMatchObject({ image: PNG, image_tail: PNG, mode: "std", duration: "5" });
    expect(lastCreate(kling).body.aspect_ratio).toBeUndefined();
  });

  it("the token is HS256 over iss, exp and nbf; a wrong secret is refused by Kling", async () => {
    const [h, c] = klingToken("AK", "SK", 1_000_000).split(".");
    expect(JSON.parse(Buffer.from(h!, "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
    expect(JSON.parse(Buffer.from(c!, "base64url").toString())).toEqual({ iss: "AK", exp: 1_001_800, nbf: 999_995 });
    const bad = route("kling-v2-1-master", { protocol: "kling", baseUrl: kling.baseUrl, credentials: { accessKeyId: kling.accessKey, secretAccessKey: "wrong" } });
    expect((await klingVideo.create(bad, job({ seconds: "5" }))).ok).toBe(false);
    expect(kling.requests.at(-1)!.authorized).toBe(false);
  });

  it("refuses Kling's limits by field", () => {
    const p = (j: Partial<VideoJob>) => {
      const out = klingVideo.prepare!(r(), job({ seconds: "5", ...j }));
      return out.ok ? "ok" : out.error.param;
    };
    expect(p({})).toBe("ok");
    expect(p({ seconds: "15" })).toBe("seconds");
    expect(p({ resolution: "4k" })).toBe("resolution");
    expect(p({ images: [png("reference")] })).toBe("reference_images");
  });

  it("a failed task carries Kling's reason", async () => {
    expect((await runToEnd(klingVideo, r(), job({ seconds: "5", prompt: "[fail]" }))).video).toMatchObject({ status: "failed", error: "Failure to pass the risk control system" });
  });
});

describe("seedance", () => {
  const r = () => route("seedance-1-0-pro-250528", { protocol: "seedance", baseUrl: seedance.baseUrl, apiKey: seedance.apiKey });

  it("creates a content-generation task with the parameters, polls it, reports what it rendered, downloads", async () => {
    const { id, video } = await runToEnd(seedanceVideo, r(), job({ seconds: "10", resolution: "1080p", images: [{ kind: "url", url: "https://example.com/a.png" }] }));
    expect(id).toMatch(/^cgt-/);
    expect(video).toMatchObject({ status: "completed", seconds: "10", resolution: "1080p" });
    const sent = lastCreate(seedance);
    expect(sent.authorized).toBe(true);
    expect(sent.body).toEqual({
      model: "seedance-1-0-pro-250528",
      content: [
        { type: "text", text: "a lighthouse in a storm" },
        { type: "image_url", image_url: { url: "https://example.com/a.png" }, role: "first_frame" },
      ],
      ratio: "16:9",
      resolution: "1080p",
      duration: 10,
      watermark: false,
    });
    const content = await seedanceVideo.content(r(), id);
    if (!content.ok) throw new Error(content.error.message);
    expect((await bytes(content.value.body)).equals(MP4)).toBe(true);
  });

  it("reports a lower resolution and a shorter duration when that is what it made", async () => {
    expect((await runToEnd(seedanceVideo, r(), job({ seconds: "10", resolution: "1080p", prompt: "[720p][short]" }))).video).toMatchObject({ resolution: "720p", seconds: "4" });
  });

  it("refuses a negative prompt and 15 seconds by field", () => {
    expect(seedanceVideo.prepare!(r(), job({ seconds: "5", negativePrompt: "x" }))).toMatchObject({ ok: false, error: { param: "negative_prompt" } });
    expect(seedanceVideo.prepare!(r(), job({ seconds: "15" }))).toMatchObject({ ok: false, error: { param: "seconds" } });
  });

  it("a failed task carries Seedance's reason", async () => {
    expect((await runToEnd(seedanceVideo, r(), job({ seconds: "5", prompt: "[fail]" }))).video).toMatchObject({ status: "failed", error: expect.stringContaining("sensitive") });
  });
});
