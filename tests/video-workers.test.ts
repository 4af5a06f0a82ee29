/**
 * Scale-out (PostgreSQL): a web instance with RUN_WORKERS=false and two `npm run worker`
 * processes on one database. Every task completes once, is charged once, and every webhook
 * arrives exactly once: the workers never handle one job twice. Then media retention: a task
 * past its expires_at answers 410 and a worker deletes its file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "./fakes/openai-video-upstream";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";
import { apiClient, videoGatewayConfig } from "./video-config";

const ROOT = path.resolve(import.meta.dirname, "..");

describe.skipIf(!usesPostgres())("npm run worker", () => {
  let server: TestServer;
  let fake: FakeOpenAIVideoUpstream;
  let receiver: WebhookReceiver;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAIVideoUpstream({ stepsToComplete: 3 });
    receiver = await startWebhookReceiver({ secret: "workers-secret" });
    server = await startTestServer({
      config: videoGatewayConfig(fake.baseUrl, fake.apiKey),
      env: { RUN_WORKERS: "false", TASK_POLL_INTERVAL_MS: "100", WEBHOOK_ALLOW_HOSTS: receiver.hostPort },
    });
    for (let i = 0; i < 2; i++) {
      const log = fs.openSync(path.join(server.dataDir, `worker-${i}.log`), "a");
      workers.push(
        spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/worker.ts")], {
          cwd: ROOT,
          env: { ...server.env, DATA_DIR: path.join(server.dataDir, `worker-${i}`) } as unknown as NodeJS.ProcessEnv,
          stdio: ["ignore", log, log],
        }),
      );
      fs.closeSync(log);
    }
  });
  afterAll(async () => {
    for (const w of workers) {
      const gone = new Promise((r) => w.once("exit", r));
      w.kill("SIGTERM");
      await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
    }
    await server?.dispose();
    await fake?.close();
    await receiver?.close();
  });

  it("two workers finish twelve tasks, each once, with one webhook each", async () => {
    const { key } = await createAccount(server, { usd: 5 });
    const api = apiClient(server, key);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await api.submit({ model: "vid-a", prompt: `clip ${i}${i % 4 === 3 ? " [fail]" : ""}`, seconds: "10", webhook: receiver.url, webhook_secret: "workers-secret" });
      expect(r.status).toBe(200);
      ids.push(r.json.id);
    }
    for (const id of ids) await api.until(id, ["completed", "failed"], 60_000);
    const deadline = Date.now() + 30_000;
    const hooksFor = (id: string) => receiver.received.filter((h) => (h.json as { id?: string })?.id === id);
    while (ids.some((id) => hooksFor(id).length === 0)) {
      if (Date.now() > deadline) throw new Error("missing webhooks");
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1000)); // room for a duplicate to show up
    for (const id of ids) expect(hooksFor(id), id).toHaveLength(1);
    expect(receiver.received.every((h) => h.signatureOk)).toBe(true);
    // Each upstream video fetched once: no task was downloaded twice.
    const contentFetches = fake.requests.filter((r) => r.path.endsWith("/content")).map((r) => r.path);
    expect(contentFetches.length).toBe(new Set(contentFetches).size);
    const rows = await server.query<{ task_id: string; kind: string }>("select task_id, kind from ledger_entries where task_id = any($1)", [ids]);
    for (const [i, id] of ids.entries()) {
      const kinds = rows.filter((r) => r.task_id === id).map((r) => r.kind).sort();
      expect(kinds, id).toEqual(i % 4 === 3 ? ["charge", "refund"] : ["charge"]);
    }
  }, 120_000);

  it("media past its expires_at is 410 and a worker deletes it", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const api = apiClient(server, key);
    const r = await api.submit({ model: "vid-a", prompt: "short-lived", seconds: "10" });
    await api.until(r.json.id, ["completed"], 60_000);
    const [row] = await server.query<{ media_keys: string[] }>("select media_keys from tasks where id = $1", [r.json.id]);
    expect(row!.media_keys).toEqual([`videos/${r.json.id}/0.mp4`]);
    await server.query("update tasks set expires_at = now() - interval '1 day' where id = $1", [r.json.id]);
    const content = await api.call("GET", `/v1/videos/${r.json.id}/content`);
    expect(content.status).toBe(410);
    expect(content.json.error.code).toBe("media_expired");
    // A freshly started worker runs retention at once.
    const extra = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/worker.ts")], {
      cwd: ROOT,
      env: { ...server.env, DATA_DIR: path.join(server.dataDir, "worker-extra") } as unknown as NodeJS.ProcessEnv,
      stdio: "ignore",
    });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [t] = await server.query<{ media_deleted_at: Date | null }>("select media_deleted_at from tasks where id = $1", [r.json.id]);
        if (t!.media_deleted_at) break;
        if (Date.now() > deadline) throw new Error("retention did not run");
        await new Promise((res) => setTimeout(res, 200));
      }
    } finally {
      extra.kill("SIGTERM");
    }
  }, 120_000);
});
