/**
 * Video on the vendors people use, end to end against the real server and fakes of the vendors'
 * APIs (tests/fakes/video-vendors.ts): the official openai SDK's videos.create / retrieve /
 * downloadContent on Veo (Gemini API and Vertex AI), Kling and Seedance; the books (the hold is
 * the request's worst case at per-second × resolution, the charge what the vendor made, a
 * failure refunded once); the signed webhook; the video served from our storage after the
 * vendor's URL expired; each vendor's rules refused with a 400 naming the field before any hold.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifySignature } from "../lib/tasks/webhook-signature";
import { startFakeGeminiVeo, startFakeKling, startFakeSeedance, startFakeVertexVeo } from "./fakes/video-vendors";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";
import { apiClient, micro } from "./video-config";

const SECRET = "whsec-vendors-0123";
const PROJECT = "acme-video-prod";
const REGION = "us-central1";
let server: TestServer;
let gemini: Awaited<ReturnType<typeof startFakeGeminiVeo>>;
let vertex: Awaited<ReturnType<typeof startFakeVertexVeo>>;
let kling: Awaited<ReturnType<typeof startFakeKling>>;
let seedance: Awaited<ReturnType<typeof startFakeSeedance>>;
let receiver: WebhookReceiver;
let email: string;
let key: string;
let api: ReturnType<typeof apiClient>;
let client: OpenAI;

/** USD per second by resolution, `:audio` where sound costs more (decision 0065). */
const VEO_PRICE = { "720p": 0.2, "720p:audio": 0.4, "1080p": 0.3, "1080p:audio": 0.5 };

const ENV = () => ({ TASK_POLL_INTERVAL_MS: "200", WEBHOOK_ALLOW_HOSTS: receiver.hostPort, WEBHOOK_RETRY_SCHEDULE_S: "1,1,1" });

function vendorConfig() {
  return {
    upstreams: [
      { id: "veo", protocol: "gemini-veo", baseUrl: gemini.baseUrl, apiKey: gemini.apiKey },
      { id: "veo-vertex", protocol: "vertex-veo", baseUrl: vertex.baseUrl, project: PROJECT, region: REGION, serviceAccount: vertex.serviceAccount },
      { id: "kling", protocol: "kling", baseUrl: kling.baseUrl, accessKeyId: kling.accessKey, secretAccessKey: kling.secretKey },
      { id: "ark", protocol: "seedance", baseUrl: seedance.baseUrl, apiKey: seedance.apiKey },
    ],
    models: [
      { id: "veo-3.1", kind: "video", family: "third", upstream: "veo", upstreamModel: "veo-3.1-generate-preview", price: { perSecond: VEO_PRICE } },
      { id: "veo-3.1-vertex", kind: "video", family: "third", upstream: "veo-vertex", upstreamModel: "veo-3.1-generate-001", price: { perSecond: VEO_PRICE } },
      { id: "kling-2.1", kind: "video", family: "second", upstream: "kling", upstreamModel: "kling-v2-1-master", price: { perSecond: { "720p": 0.07, "1080p": 0.14 } } },
      { id: "seedance-pro", kind: "video", family: "second", upstream: "ark", upstreamModel: "seedance-1-0-pro-250528", price: { perSecond: { "480p": 0.01, "720p": 0.03, "1080p": 0.06 } } },
    ],
  };
}

beforeAll(async () => {
  [gemini, vertex, kling, seedance, receiver] = await Promise.all([
    startFakeGeminiVeo({ stepsToComplete: 2 }),
    startFakeVertexVeo({ project: PROJECT, region: REGION, stepsToComplete: 2 }),
    startFakeKling({ stepsToComplete: 2 }),
    startFakeSeedance({ stepsToComplete: 2 }),
    startWebhookReceiver({ secret: SECRET }),
  ]);
  server = await startTestServer({ config: vendorConfig(), env: ENV() });
  for (const s of [gemini.apiKey, seedance.apiKey, kling.secretKey]) server.secrets.add(s);
  ({ email, key } = await createAccount(server, { usd: 50 }));
  api = apiClient(server, key);
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all([gemini, vertex, kling, seedance, receiver].map((f) => f?.close()));
});

async function ledger(taskId: string): Promise<string[]> {
  const rows = await server.query<{ kind: string; delta_micro_usd: number; note: string | null }>("select kind, delta_micro_usd, note from ledger_entries where task_id = $1 order by created_at, id", [taskId]);
  return rows.map((r) => `${r.kind}:${Number(r.delta_micro_usd)}${r.kind === "release" ? `:${r.note}` : ""}`);
}

async function completed(id: string) {
  let v = await client.videos.retrieve(id);
  for (let i = 0; i < 300 && v.status !== "completed" && v.status !== "failed"; i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await client.videos.retrieve(id);
  }
  return v;
}

describe.skipIf(!usesPostgres())("video vendors through the official openai SDK", () => {
  it("Veo on the Gemini API: the SDK's size becomes 16:9 at 1080p, held at 1080p with sound, MP4 from our storage after Google's link expired", async () => {
    const before = await balanceUsd(server, email);
    const video = await client.videos.create({ model: "veo-3.1", prompt: "a lighthouse in a storm", seconds: "8" as never, size: "1920x1080" as never });
    expect(video).toMatchObject({ object: "video", status: "queued", model: "veo-3.1", seconds: "8" });
    // 8 s × $0.50 (1080p with sound, Veo 3's default).
    expect(micro(before - (await balanceUsd(server, email)))).toBe(4_000_000);
    const sent = gemini.requests.find((r) => r.method === "POST" && r.body?.instances?.[0]?.prompt === "a lighthouse in a storm")!;
    expect(sent.authorized).toBe(true);
    expect(sent.body.parameters).toEqual({ aspectRatio: "16:9", resolution: "1080p", durationSeconds: 8 });

    const done = await completed(video.id);
    expect(done).toMatchObject({ status: "completed", progress: 100, error: null });
    // Google's download redirected to its storage, which never saw the key.
    expect(gemini.mediaRequests.length).toBeGreaterThan(0);
    expect(gemini.mediaRequests.every((r) => r.headers["x-goog-api-key"] === undefined)).toBe(true);
    gemini.expireMedia();
    try {
      const content = await client.videos.downloadContent(video.id);
      const mp4 = Buffer.from(await content.arrayBuffer());
      expect(mp4.subarray(4, 8).toString("latin1")).toBe("ftyp");
    } finally {
      gemini.expireMedia(false);
    }
    // The Gemini API reports no resolution or duration: billed as asked, nothing released.
    expect(await ledger(video.id)).toEqual(["charge:-4000000"]);
  });

  it("Veo on Vertex AI: service-account token, silent 720p at the silent price, the inline video stored", async () => {
    const sub = await api.submit({ model: "veo-3.1-vertex", prompt: "a fox in the snow", aspect_ratio: "9:16", resolution: "720p", generate_audio: false, negative_prompt: "people" });
    expect(sub.status).toBe(200);
    expect(sub.headers.get("x-gateway-cost-usd")).toBe("1.60");
    const sent = vertex.requests.find((r) => r.body?.instances?.[0]?.prompt === "a fox in the snow")!;
    expect(sent.authorized).toBe(true);
    expect(sent.body.parameters).toEqual({ aspectRatio: "9:16", resolution: "720p", durationSeconds: 8, negativePrompt: "people", sampleCount: 1, generateAudio: false });
    expect(vertex.requests.some((r) => r.path === "/token" && r.authorized)).toBe(true);
    const done = await completed(sub.json.id);
    expect(done.status).toBe("completed");
    const content = await fetch(`${server.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` } });
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer()).subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(await ledger(sub.json.id)).toEqual(["charge:-1600000"]);
  });

  it("Seedance: a 1080p request that came back 720p and shorter is billed as 720p for what it made, the release says so, the webhook is signed", async () => {
    const sub = await api.submit({ model: "seedance-pro", prompt: "[720p][short] city lights", seconds: "10", resolution: "1080p", webhook: receiver.url, webhook_secret: SECRET });
    expect(sub.status).toBe(200);
    // Held: 10 s × $0.06 (1080p).
    expect(sub.headers.get("x-gateway-cost-usd")).toBe("0.60");
    const done = await completed(sub.json.id);
    expect(done.status).toBe("completed");
    // Charged: 4 s × $0.03 (720p) = 0.12; 0.48 released.
    expect(await ledger(sub.json.id)).toEqual(["charge:-600000", "release:480000:video task made less than held (billed as 720p)"]);
    const task = await api.task(sub.json.id);
    expect(task.json).toMatchObject({ status: "completed", cost: 0.12 });
    const deadline = Date.now() + 20_000;
    while (!receiver.received.some((h) => (h.json as { id?: string })?.id === sub.json.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const hook = receiver.received.find((h) => (h.json as { id?: string })?.id === sub.json.id)!;
    expect(hook.signatureOk).toBe(true);
    expect(verifySignature(hook.headers["x-shim-signature"] as string, hook.rawBody, SECRET).ok).toBe(true);
    expect(hook.json).toMatchObject({ id: sub.json.id, status: "completed", cost: 0.12 });
  });

  it("Kling: a JWT-signed submission that the vendor fails is refunded exactly once", async () => {
    const before = await balanceUsd(server, email);
    const sub = await api.submit({ model: "kling-2.1", prompt: "[fail] a dancer", seconds: "5", aspect_ratio: "1:1" });
    expect(sub.status).toBe(200);
    expect(sub.headers.get("x-gateway-cost-usd")).toBe("0.35");
    expect(kling.requests.find((r) => r.body?.prompt === "[fail] a dancer")).toMatchObject({ authorized: true, body: { mode: "std", duration: "5", aspect_ratio: "1:1" } });
    const done = await completed(sub.json.id);
    expect(done).toMatchObject({ status: "failed", error: { message: expect.stringContaining("risk control") } });
    expect(await ledger(sub.json.id)).toEqual(["charge:-350000", "refund:350000"]);
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("Kling: 1080p is professional mode at the 1080p price; the reported duration settles", async () => {
    const video = await client.videos.create({ model: "kling-2.1", prompt: "a paper boat", seconds: "10" as never, size: "1920x1080" as never });
    const done = await completed(video.id);
    expect(done.status).toBe("completed");
    expect(kling.requests.find((r) => r.body?.prompt === "a paper boat")!.body).toMatchObject({ mode: "pro", duration: "10", aspect_ratio: "16:9" });
    expect(await ledger(video.id)).toEqual(["charge:-1400000"]);
    const mp4 = Buffer.from(await (await client.videos.downloadContent(video.id)).arrayBuffer());
    expect(mp4.subarray(4, 8).toString("latin1")).toBe("ftyp");
  });

  it.each([
    ["veo-3.1", { prompt: "p", aspect_ratio: "1:1" }, "aspect_ratio"],
    ["veo-3.1", { prompt: "p", seconds: "10" }, "seconds"],
    ["veo-3.1", { prompt: "p", generate_audio: false }, "generate_audio"],
    ["veo-3.1", { prompt: "p", resolution: "4k" }, "resolution"],
    ["kling-2.1", { prompt: "p", seconds: "15" }, "seconds"],
    ["kling-2.1", { prompt: "p", seconds: "5", reference_images: ["https://example.com/a.png"] }, "reference_images"],
    ["seedance-pro", { prompt: "p", seconds: "5", negative_prompt: "blur" }, "negative_prompt"],
  ])("%s refuses %j naming %s, before any hold", async (model, body, param) => {
    const before = await balanceUsd(server, email);
    const r = await api.submit({ model, ...body });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "invalid_request", param });
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("two instances, the one that took a Seedance task killed mid-task: the other finishes it, charged once and released once", async () => {
    const second = await startTestServer({ shareWith: server, config: vendorConfig(), env: ENV() });
    try {
      seedance.stepsToComplete = 8;
      const api2 = apiClient(second, key);
      const sub = await api2.submit({ model: "seedance-pro", prompt: "[720p] survive a crash", seconds: "5", resolution: "1080p" });
      expect(sub.status).toBe(200);
      await api2.until(sub.json.id, ["in_progress"]);
      await second.stop("SIGKILL");
      // The first instance takes the task when the dead one's lease runs out.
      const done = await api.until(sub.json.id, ["completed", "failed"], 90_000);
      expect(done.status).toBe("completed");
      // Held 5 s × $0.06 (1080p); made 720p: 5 s × $0.03.
      expect(await ledger(sub.json.id)).toEqual(["charge:-300000", "release:150000:video task made less than held (billed as 720p)"]);
    } finally {
      seedance.stepsToComplete = 2;
      await second.dispose();
    }
  }, 120_000);

  it("/v1/models shows the per-second table by resolution", async () => {
    const r = await api.call("GET", "/v1/models/veo-3.1");
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.json)).toContain('"1080p:audio":0.5');
  });
});
