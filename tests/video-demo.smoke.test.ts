/**
 * The demo video upstream through the real server with the built-in catalog (what a new user
 * gets from `npm start`): queued → in_progress → completed over a few seconds with progress
 * rising, a real MP4 (ftyp box) from the content endpoint and the signed URL, the charge in
 * the balance; a `[fail]` prompt ends failed and refunded. PGlite-safe (no direct SQL).
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { apiClient, micro } from "./video-config";

let server: TestServer;
let email: string;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ email, key } = await createAccount(server, { usd: 1 }));
});
afterAll(() => server?.dispose());

describe("demo-video", () => {
  it("is listed and runs to a playable MP4", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain("demo-video");

    const api = apiClient(server, key);
    const video = await client.videos.create({ model: "demo-video", prompt: "a paper boat on a pond", seconds: "10" as never, size: "1920x1080" as never });
    expect(video).toMatchObject({ status: "queued", progress: 0, seconds: "10", size: "1920x1080" as never });
    expect(micro(1 - (await balanceUsd(server, email)))).toBe(250_000);
    const seen: Array<{ status: string; progress: number }> = [];
    await api.until(video.id, ["completed"], 30_000, seen);
    const inProgress = seen.filter((s) => s.status === "in_progress").map((s) => s.progress);
    expect(inProgress.length).toBeGreaterThan(1);
    expect(new Set(inProgress).size).toBeGreaterThan(1);
    expect(inProgress).toEqual([...inProgress].sort((a, b) => a - b));

    const content = await client.videos.downloadContent(video.id);
    const mp4 = Buffer.from(await content.arrayBuffer());
    expect(mp4.subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(mp4.length).toBeGreaterThan(10_000);

    const task = await api.task(video.id);
    expect(task.json).toMatchObject({ object: "task", status: "completed", model: "demo-video", progress: 100, cost: 0.25, error: null });
    const url = (task.json.result.videos[0].url[0] as string).replace(server.env.PUBLIC_BASE_URL!, server.url);
    const viaUrl = await fetch(url, { headers: { range: "bytes=0-15" } });
    expect(viaUrl.status).toBe(206);
    expect(Buffer.from(await viaUrl.arrayBuffer()).subarray(4, 8).toString("latin1")).toBe("ftyp");
  });

  it("a [fail] prompt ends failed and the charge comes back", async () => {
    const api = apiClient(server, key);
    const before = await balanceUsd(server, email);
    const sub = await api.submit({ model: "demo-video", prompt: "please [fail] this one", seconds: "10" });
    expect(sub.status).toBe(200);
    const v = await api.until(sub.json.id, ["failed", "completed"], 30_000);
    expect(v.status).toBe("failed");
    expect(v.error.message).toMatch(/\[fail\]/);
    expect((await api.task(sub.json.id)).json).toMatchObject({ status: "failed", cost: 0, result: null });
    expect(await balanceUsd(server, email)).toBe(before);
  });
});
