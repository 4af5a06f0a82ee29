/**
 * Video tasks end to end against the real server: the official openai SDK's multipart create,
 * JSON bodies, polling to completion with progress rising, the MP4 from the content endpoint
 * (streamed, Range) and from the signed result URL, the Task object, the ledger, failure with
 * exactly one refund, family rules, 402, ownership, list and delete.
 */
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "./fakes/openai-video-upstream";
import { balanceUsd, createAccount, createKey } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";
import { apiClient, micro, videoGatewayConfig } from "./video-config";

let server: TestServer;
let fake: FakeOpenAIVideoUpstream;
let email: string;
let key: string;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  fake = await startFakeOpenAIVideoUpstream({ stepsToComplete: 3 });
  server = await startTestServer({ config: videoGatewayConfig(fake.baseUrl, fake.apiKey), env: { TASK_POLL_INTERVAL_MS: "200" } });
  ({ email, key } = await createAccount(server, { usd: 5 }));
  api = apiClient(server, key);
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});

async function ledgerKinds(taskId: string): Promise<string[]> {
  const rows = await server.query<{ kind: string; delta_micro_usd: number }>("select kind, delta_micro_usd from ledger_entries where task_id = $1 order by id", [taskId]);
  return rows.map((r) => `${r.kind}:${Number(r.delta_micro_usd)}`);
}

describe("the official openai SDK", () => {
  it("creates with client.videos.create (multipart), polls, downloads", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const before = await balanceUsd(server, email);
    const video = await client.videos.create({ model: "vid-a", prompt: "a calico cat playing a piano", seconds: "10" as never, size: "1280x720" });
    expect(video).toMatchObject({ object: "video", status: "queued", progress: 0, model: "vid-a", seconds: "10", size: "1280x720" });
    expect(video.id).toMatch(/^task_/);
    expect(typeof video.created_at).toBe("number");
    expect(micro(before - (await balanceUsd(server, email)))).toBe(250_000);
    const sent = fake.requests.find((r) => r.method === "POST" && r.fields.prompt === "a calico cat playing a piano")!;
    expect(sent.contentType).toMatch(/^multipart\/form-data/);
    expect(sent.fields).toMatchObject({ model: "sora-2", seconds: "10", size: "1280x720" });

    let v = await client.videos.retrieve(video.id);
    for (let i = 0; i < 200 && v.status !== "completed"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      v = await client.videos.retrieve(video.id);
    }
    expect(v).toMatchObject({ status: "completed", progress: 100, error: null });
    expect(v.expires_at! - v.completed_at!).toBe(14 * 86_400);
    const content = await client.videos.downloadContent(video.id);
    expect(content.headers.get("content-type")).toBe("video/mp4");
    const mp4 = Buffer.from(await content.arrayBuffer());
    expect(mp4.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const list = await client.videos.list({ limit: 5 });
    expect(list.data.map((x) => x.id)).toContain(video.id);
  });
});

describe("image inputs", () => {
  it("take an uploaded file through the SDK's multipart create (image-to-video)", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2048, 7)]);
    const video = await client.videos.create({
      model: "vid-i2v",
      prompt: "animate this picture",
      seconds: "10" as never,
      input_reference: await toFile(png, "still.png", { type: "image/png" }),
    });
    expect(video.status).toBe("queued");
    const sent = fake.requests.find((r) => r.method === "POST" && r.fields.prompt === "animate this picture")!;
    expect(sent.files).toEqual({ input_reference: png.length });
  });

  it("refuses an image over 5 MiB", async () => {
    const r = await api.submit({ model: "vid-i2v", prompt: "p", seconds: "10", images: [`data:image/png;base64,${Buffer.alloc(5 * 1024 * 1024 + 1).toString("base64")}`] });
    expect(r.status).toBe(400);
    expect(r.json.error.param).toBe("images");
  });

  it("answers 413 past the route's body limit", async () => {
    const res = await fetch(`${server.url}/v1/videos`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "vid-i2v", prompt: "x".repeat(41 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("payload_too_large");
  });
});

describe("full flow against the fake openai-video upstream (JSON body)", () => {
  it("moves queued → in_progress → completed with progress rising, and serves the MP4", async () => {
    // More upstream steps, so the in_progress phase outlasts a few of our polls even under load.
    fake.stepsToComplete = 8;
    const sub = await api.submit({ model: "vid-a", prompt: "waves at dusk", seconds: "10", size: "720x1280" });
    expect(sub.status).toBe(200);
    expect(sub.headers.get("x-gateway-cost-usd")).toBe("0.25");
    const id = sub.json.id as string;
    const seen: Array<{ status: string; progress: number }> = [{ status: sub.json.status, progress: sub.json.progress }];
    await api.until(id, ["completed"], 45_000, seen).finally(() => (fake.stepsToComplete = 3));
    expect(seen.map((s) => s.status)).toContain("in_progress");
    const progresses = seen.map((s) => s.progress);
    expect(progresses).toEqual([...progresses].sort((a, b) => a - b));

    const task = await api.task(id);
    expect(task.status).toBe(200);
    expect(task.json).toMatchObject({ id, object: "task", status: "completed", model: "vid-a", progress: 100, cost: 0.25, error: null });
    expect(typeof task.json.created).toBe("number");
    expect(typeof task.json.completed).toBe("number");
    const [entry] = task.json.result.videos;
    expect(entry.expires_at).toBe(task.json.completed + 14 * 86_400);
    expect(entry.url).toHaveLength(1);
    expect(entry.url[0]).toMatch(new RegExp(`^${server.env.PUBLIC_BASE_URL}/v1/media/${id}/video-0\\.mp4\\?expires=\\d+&signature=[0-9a-f]{64}$`));

    // The content endpoint: whole and by range.
    const whole = await fetch(`${server.url}/v1/videos/${id}/content?model=vid-a`, { headers: { authorization: `Bearer ${key}` } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(Number(whole.headers.get("content-length"))).toBe(bytes.length);
    const part = await fetch(`${server.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}`, range: "bytes=4-7" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 4-7/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).toString("latin1")).toBe("ftyp");
    const tail = await fetch(`${server.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}`, range: `bytes=${bytes.length}-` } });
    expect(tail.status).toBe(416);

    // The signed result URL needs no key; a tampered one is refused.
    const local = entry.url[0].replace(server.env.PUBLIC_BASE_URL, server.url);
    const viaUrl = await fetch(local);
    expect(viaUrl.status).toBe(200);
    expect(Buffer.from(await viaUrl.arrayBuffer()).equals(bytes)).toBe(true);
    // Change the first hex digit (to another one: a signature may start with "0").
    expect((await fetch(local.replace(/signature=([0-9a-f])/, (_: string, c: string) => `signature=${c === "0" ? "1" : "0"}`))).status).toBe(404);
    expect((await fetch(local.replace(/expires=\d+/, "expires=9999999999"))).status).toBe(404);

    if (usesPostgres()) expect(await ledgerKinds(id)).toEqual(["charge:-250000"]);
  });

  it("fails over to the next route when the first upstream is down", async () => {
    const sub = await api.submit({ model: "vid-failover", prompt: "failover please", seconds: "10" });
    expect(sub.status).toBe(200);
    await api.until(sub.json.id, ["completed"]);
    // The log row says which entry failed and which served (as text, embeddings and images do).
    const [row] = await server.query<{ trace: Array<{ upstream: string; result: string; reason?: string }> | null; upstream_id: string }>(
      "select route_trace as trace, upstream_id from request_logs where route = '/v1/videos' and model = 'vid-failover' and status = 200 order by id desc limit 1",
    );
    expect(row!.trace?.map((t) => t.result)).toEqual(["failed", "served"]);
    expect(row!.trace![0]!.reason).toMatch(/upstream_error|5\d\d|connect/);
    expect(row!.upstream_id).toBe(row!.trace!.find((t) => t.result === "served")!.upstream);
  });

  it("a failed task ends failed with error.message, cost 0, refunded exactly once", async () => {
    const before = await balanceUsd(server, email);
    const sub = await api.submit({ model: "vid-a", prompt: "this one will [fail]", seconds: "10" });
    expect(sub.status).toBe(200);
    const v = await api.until(sub.json.id, ["failed"]);
    expect(v.error).toEqual({ code: "generation_failed", message: "The upstream could not generate this video." });
    const task = await api.task(sub.json.id);
    expect(task.json).toMatchObject({ status: "failed", result: null, cost: 0, error: { message: "The upstream could not generate this video." } });
    expect(await balanceUsd(server, email)).toBe(before);
    const content = await api.call("GET", `/v1/videos/${sub.json.id}/content`);
    expect(content.status).toBe(409);
    expect(content.json.error).toMatchObject({ type: "invalid_request", code: "task_not_ready" });
    if (usesPostgres()) expect(await ledgerKinds(sub.json.id)).toEqual(["charge:-250000", "refund:250000"]);
  });

  it("an upstream that refuses at creation answers with its error and charges nothing", async () => {
    const before = await balanceUsd(server, email);
    const sub = await api.submit({ model: "vid-a", prompt: "[create-400]", seconds: "10" });
    expect(sub.status).toBe(400);
    expect(sub.json.error).toMatchObject({ type: "upstream_error", message: "The upstream rejected the request: Your request was rejected by the safety system." });
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("a key's tokens-per-minute limit counts the prompt; a refused submission creates no task and charges nothing", async () => {
    const tight = apiClient(server, await createKey(server, email, "--tpm", "40"));
    const before = await balanceUsd(server, email);
    const ok = await tight.submit({ model: "vid-a", prompt: "a heron over a lake", seconds: "10" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-limit-tokens")).toBe("40");
    const charged = await balanceUsd(server, email);
    expect(charged).toBeLessThan(before);
    const refused = await tight.submit({ model: "vid-a", prompt: "a second heron over the same lake", seconds: "10" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(await balanceUsd(server, email)).toBe(charged);
  });

  it("content before completion is 409 task_not_ready", async () => {
    const sub = await api.submit({ model: "vid-a", prompt: "slow one [never]", seconds: "10" });
    const r = await api.call("GET", `/v1/videos/${sub.json.id}/content`);
    expect(r.status).toBe(409);
    expect(r.json.error.code).toBe("task_not_ready");
    expect((await api.call("DELETE", `/v1/videos/${sub.json.id}`)).status).toBe(409);
  });

  it("delete removes the media: content is then 410 media_expired", async () => {
    const sub = await api.submit({ model: "vid-a", prompt: "to be deleted", seconds: "10" });
    await api.until(sub.json.id, ["completed"]);
    const del = await api.call("DELETE", `/v1/videos/${sub.json.id}`);
    expect(del.json).toEqual({ id: sub.json.id, object: "video.deleted", deleted: true });
    const r = await api.call("GET", `/v1/videos/${sub.json.id}/content`);
    expect(r.status).toBe(410);
    expect(r.json.error).toMatchObject({ type: "invalid_request", code: "media_expired" });
  });

  it("settles a duration-priced family on its seconds", async () => {
    const before = await balanceUsd(server, email);
    const sub = await api.submit({ model: "vid-second", prompt: "short clip", seconds: "5", aspect_ratio: "9:16" });
    expect(sub.status).toBe(200);
    expect(sub.json).toMatchObject({ seconds: "5", size: null, aspect_ratio: "9:16" });
    expect(micro(before - (await balanceUsd(server, email)))).toBe(125_000);
  });
});

describe("validation at submission (nothing charged)", () => {
  it.each([
    [{ model: "vid-a", prompt: "p" }, 400, "invalid_request", "seconds"],
    [{ model: "vid-a", prompt: "p", seconds: "5" }, 400, "invalid_request", "seconds"],
    [{ model: "vid-a", prompt: "p", seconds: 10 }, 400, "invalid_request", "seconds"],
    [{ model: "vid-a", prompt: "p", seconds: "10", size: "640x480" }, 400, "invalid_request", "size"],
    [{ model: "vid-a", prompt: "p", seconds: "10", familySlug: "t2v" }, 400, "invalid_request", "familySlug"],
    [{ model: "vid-a", prompt: "p", seconds: "10", webhook: "https://example.com/h", webhook_secret: "short" }, 400, "invalid_request", "webhook_secret"],
    [{ model: "vid-i2v", prompt: "p", seconds: "10" }, 400, "invalid_request", "images"],
    [{ model: "vid-i2v", prompt: "p", seconds: "10", images: ["https://example.com/a.png"], size: "1024x1024" }, 400, "invalid_request", "size"],
    [{ model: "vid-second", prompt: "p", seconds: "8" }, 400, "invalid_request", "seconds"],
    [{ model: "no-such-model", prompt: "p", seconds: "10" }, 404, "model_not_found", "model"],
    [{ model: "demo-chat", prompt: "p", seconds: "10" }, 400, "model_not_supported", "model"],
  ])("%j → %i %s", async (body, status, code, param) => {
    const before = await balanceUsd(server, email);
    const r = await api.submit(body);
    expect(r.status).toBe(status);
    expect(r.json.error.code).toBe(code);
    expect(r.json.error.param).toBe(param);
    if (code === "invalid_request") expect(r.json.error.type).toBe("invalid_request");
    expect(r.headers.get("x-should-retry")).toBe("false");
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("402 insufficient_user_quota when the balance is short, before any upstream call", async () => {
    const poor = await createAccount(server, { usd: 0.1 });
    const creates = () => fake.requests.filter((q) => q.method === "POST").length;
    const calls = creates();
    const r = await apiClient(server, poor.key).submit({ model: "vid-a", prompt: "too expensive", seconds: "10" });
    expect(r.status).toBe(402);
    expect(r.json.error).toMatchObject({ type: "insufficient_quota", code: "insufficient_user_quota" });
    expect(creates()).toBe(calls);
    expect(await balanceUsd(server, poor.email)).toBe(0.1);
  });

  it("Idempotency-Key: a repeat returns the first answer and charges nothing more", async () => {
    const before = await balanceUsd(server, email);
    const body = { model: "vid-a", prompt: "idempotent", seconds: "10" };
    const a = await api.submit(body, { "idempotency-key": "video-key-1" });
    const b = await api.submit(body, { "idempotency-key": "video-key-1" });
    expect(b.status).toBe(200);
    expect(b.json.id).toBe(a.json.id);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(250_000);
  });
});

describe("Idempotency-Key under concurrency", () => {
  it("ten concurrent identical submissions: one task, one charge, one upstream call", async () => {
    const acct = await createAccount(server, { usd: 3 });
    const c = apiClient(server, acct.key);
    const body = { model: "vid-a", prompt: "exactly one of these", seconds: "10" };
    const creates = () => fake.requests.filter((q) => q.method === "POST" && q.fields.prompt === body.prompt).length;
    const results = await Promise.all(Array.from({ length: 10 }, () => c.submit(body, { "idempotency-key": "same-key-10" })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.json.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.json.error.code).toBe("idempotency_in_progress");
    expect(creates()).toBe(1);
    expect(micro(3 - (await balanceUsd(server, acct.email)))).toBe(250_000);
    // After the first answer is stored, a repeat replays it.
    const again = await c.submit(body, { "idempotency-key": "same-key-10" });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(ok[0]!.json.id);
  });
});

describe("ownership", () => {
  it("another account's task id is 404 on every task route", async () => {
    const sub = await api.submit({ model: "vid-a", prompt: "mine", seconds: "10" });
    await api.until(sub.json.id, ["completed"]);
    const other = apiClient(server, (await createAccount(server, { usd: 1 })).key);
    for (const [method, path] of [
      ["GET", `/v1/videos/${sub.json.id}`],
      ["GET", `/v1/videos/${sub.json.id}/content`],
      ["DELETE", `/v1/videos/${sub.json.id}`],
      ["GET", `/v1/tasks/${sub.json.id}`],
    ] as const) {
      const r = await other.call(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
    expect((await other.call("GET", "/v1/videos")).json.data).toEqual([]);
    // The owner still has it; a wrong `model` query parameter is 404 too.
    expect((await api.video(sub.json.id)).status).toBe(200);
    expect((await api.call("GET", `/v1/videos/${sub.json.id}?model=vid-failover`)).status).toBe(404);
    expect((await api.call("GET", "/v1/tasks/task_doesnotexist")).status).toBe(404);
  });

  it("every task route needs a key except the signed media URL", async () => {
    for (const path of ["/v1/videos", "/v1/videos/task_x", "/v1/videos/task_x/content", "/v1/tasks/task_x"]) {
      const r = await fetch(`${server.url}${path}`);
      expect(r.status).toBe(401);
    }
  });
});
