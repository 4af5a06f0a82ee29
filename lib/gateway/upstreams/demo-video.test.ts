import { describe, expect, it } from "vitest";
import type { ModelRoute } from "../model-route";
import { DEMO_QUEUE_MS, DEMO_RUN_MS, demoState, demoVideo } from "./demo-video";

const route: ModelRoute = {
  rowId: "m",
  modelId: "demo-video",
  kind: "video",
  ownedBy: "demo",
  defaultMaxTokens: null,
  strict: false,
  priority: 0,
  weight: 1,
  family: "t2v",
  upstreamModel: "demo-video",
  price: { perVideo: 250_000 },
  upstream: { id: "demo", protocol: "demo", baseUrl: "", apiKey: null, timeoutMs: null },
};
const job = (prompt: string, size = "1920x1080") => ({ prompt, seconds: "10", size, aspectRatio: null, images: [], videoUrl: null });

describe("demo video upstream", () => {
  it("moves queued → in_progress (rising) → completed from the id alone", async () => {
    const c = await demoVideo.create(route, job("a sunrise"));
    if (!c.ok) throw new Error("create failed");
    const t0 = Date.now();
    expect(demoState(c.value.id, t0)).toMatchObject({ status: "queued", progress: 0 });
    const mid1 = demoState(c.value.id, t0 + DEMO_QUEUE_MS + 1000)!;
    const mid2 = demoState(c.value.id, t0 + DEMO_QUEUE_MS + 3000)!;
    expect(mid1.status).toBe("in_progress");
    expect(mid2.progress).toBeGreaterThan(mid1.progress);
    expect(demoState(c.value.id, t0 + DEMO_QUEUE_MS + DEMO_RUN_MS + 10)).toMatchObject({ status: "completed", progress: 100 });
  });

  it("fails a [fail] prompt", async () => {
    const c = await demoVideo.create(route, job("please [fail]"));
    if (!c.ok) throw new Error("create failed");
    expect(demoState(c.value.id, Date.now() + 60_000)).toMatchObject({ status: "failed" });
  });

  it("serves the clip of the asked size once completed", async () => {
    const c = await demoVideo.create(route, job("x", "720x1280"));
    if (!c.ok) throw new Error("create failed");
    expect((await demoVideo.content(route, c.value.id)).ok).toBe(false);
    const old = c.value.id.replace(/^demo_[0-9a-z]+_/, `demo_${(Date.now() - 60_000).toString(36)}_`);
    const r = await demoVideo.content(route, old);
    if (!r.ok) throw new Error("content failed");
    const parts: Buffer[] = [];
    for await (const p of r.value.body) parts.push(p as Buffer);
    const mp4 = Buffer.concat(parts);
    expect(mp4.subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(mp4.length).toBeGreaterThan(10_000);
  });

  it("refuses ids it did not make", async () => {
    expect((await demoVideo.get(route, "video_123")).ok).toBe(false);
  });
});
