/**
 * The worker against a real database (PostgreSQL with DATABASE_URL, else PGlite), the fake
 * openai-video upstream, the demo upstream and a loopback webhook receiver, with a compressed
 * retry schedule.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, ledgerEntries, models, tasks, upstreams, webhookAttempts, webhookDeliveries } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "../../tests/fakes/openai-video-upstream";
import { startWebhookReceiver, type WebhookReceiver } from "../../tests/fakes/webhook-receiver";
import { applyLedgerChange, ledgerSum } from "../billing/ledger";
import { encryptSecret } from "../crypto";
import { loadTaskUpstream } from "../gateway/videos/task-upstream";
import { resetEnvCache } from "../env";
import { newId } from "../ids";
import { LocalStorage } from "../storage/local-storage";
import { createGuardedAgent, loopbackOnlyConnector } from "./guarded-dispatcher";
import { runRetention } from "./retention";
import { makePolicy } from "./ssrf";
import { createVideoTask, type CreateTaskInput } from "./task-lifecycle";
import { claimDueTasks, startWorker } from "./worker";
import { claimDueDeliveries } from "./webhook-queue";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "worker-unit-"));
process.env.ENCRYPTION_KEY = "unit-test-encryption-key";
process.env.PUBLIC_BASE_URL = "https://gw.example.com";
process.env.TASK_POLL_INTERVAL_MS = "100";
process.env.WEBHOOK_RETRY_SCHEDULE_S = "0.2,0.2,0.2";
// Long enough that a loaded machine (CI beside other suites) answers in time; the slow receiver below waits longer still.
process.env.WEBHOOK_TIMEOUT_MS = "2000";
resetEnvCache();

let db: DB;
let close: () => Promise<void>;
let fake: FakeOpenAIVideoUpstream;
let receiver: WebhookReceiver;
let storage: LocalStorage;
const ac = new AbortController();
let worker: Promise<void>;

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  fake = await startFakeOpenAIVideoUpstream({ stepsToComplete: 3 });
  receiver = await startWebhookReceiver({ secret: "receiver-secret" });
  storage = new LocalStorage(fs.mkdtempSync(path.join(os.tmpdir(), "worker-media-")));
  await db.insert(upstreams).values([
    { id: "demo", protocol: "demo", source: "demo" },
    { id: "vid", protocol: "openai-video", baseUrl: fake.baseUrl, apiKeyEncrypted: encryptSecret(fake.apiKey) },
  ]);
  await db.insert(models).values([
    { id: "mdl_demo", modelId: "demo-video", upstreamId: "demo", upstreamModel: "demo-video", kind: "video", family: "t2v", ownedBy: "demo", price: { perVideo: 250_000 } },
    { id: "mdl_vid", modelId: "vid-a", upstreamId: "vid", upstreamModel: "sora-2", kind: "video", family: "t2v", ownedBy: "x", price: { perVideo: 250_000 } },
  ]);
  const policy = makePolicy({ publicBaseUrl: "https://gw.example.com", allowHosts: [receiver.hostPort] });
  const dispatcher = createGuardedAgent({ policy, baseConnect: loopbackOnlyConnector() });
  worker = startWorker({ signal: ac.signal, upstreamFor: loadTaskUpstream, db, storage, policy, dispatcher, tickMs: 50, idleMaxMs: 200 });
});

afterAll(async () => {
  ac.abort();
  await worker;
  await fake.close();
  await receiver.close();
  await close();
});

async function account(balanceMicro = 1_000_000): Promise<string> {
  const id = newId("account");
  await db.insert(accounts).values({ id, name: id });
  await applyLedgerChange(db, { accountId: id, deltaMicroUsd: balanceMicro, kind: "admin_credit", idempotencyKey: `seed:${id}` });
  return id;
}

function input(accountId: string, upstream: "demo" | "vid", prompt: string, extra: Partial<CreateTaskInput> = {}): CreateTaskInput {
  return {
    accountId,
    keyId: null,
    userId: null,
    source: "api",
    model: upstream === "demo" ? "demo-video" : "vid-a",
    modelRowId: upstream === "demo" ? "mdl_demo" : "mdl_vid",
    upstreamId: upstream,
    upstreamModel: upstream === "demo" ? "demo-video" : "sora-2",
    family: "t2v",
    job: { prompt, seconds: "10", size: "1280x720", aspectRatio: null, images: [], videoUrl: null },
    webhookUrl: receiver.url,
    webhookSecret: "receiver-secret",
    holdMicroUsd: 250_000,
    price: { perVideo: 250_000 },
    requestId: newId("request"),
    timeoutS: 3600,
    // Not submitted upstream yet: the worker does it (as after a crash of the submitting request).
    leaseMs: 0,
    ...extra,
  };
}

async function task(id: string) {
  return (await db.select().from(tasks).where(eq(tasks.id, id)))[0]!;
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function hooksFor(taskId: string) {
  return receiver.received.filter((h) => (h.json as { id?: string } | null)?.id === taskId);
}

describe("worker", () => {
  it("runs a demo task to a stored MP4, with rising progress and one signed webhook", async () => {
    const a = await account();
    const r = await createVideoTask(db, input(a, "demo", "a sunrise over the sea"));
    if (!r.ok) throw new Error("create");
    const seen = new Set<string>();
    const done = await until("completion", async () => {
      const t = await task(r.task.id);
      seen.add(`${t.status}`);
      return t.status === "completed" ? t : null;
    });
    expect(seen.has("in_progress")).toBe(true);
    expect(done.mediaKeys).toEqual([`videos/${r.task.id}/0.mp4`]);
    const head = Buffer.alloc(8);
    fs.readSync(fs.openSync(path.join(storage.root, done.mediaKeys![0]!), "r"), head, 0, 8, 0);
    expect(head.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const [hook] = await until("webhook", async () => ((await hooksFor(r.task.id)).length ? hooksFor(r.task.id) : null));
    expect(hook!.signatureOk).toBe(true);
    expect(hook!.json).toMatchObject({ id: r.task.id, object: "task", status: "completed", cost: 0.25, error: null });
    const charges = (await db.select().from(ledgerEntries).where(eq(ledgerEntries.taskId, r.task.id))).map((l) => l.kind);
    expect(charges).toEqual(["charge"]);
  }, 40_000);

  it("fails and refunds a task the upstream fails, and announces it", async () => {
    const a = await account();
    const r = await createVideoTask(db, input(a, "vid", "x [fail]"));
    if (!r.ok) throw new Error("create");
    const t = await until("failure", async () => ((await task(r.task.id)).status === "failed" ? task(r.task.id) : null));
    expect(t).toMatchObject({ costMicroUsd: 0, errorMessage: "The upstream could not generate this video." });
    const kinds = (await db.select().from(ledgerEntries).where(eq(ledgerEntries.taskId, r.task.id))).map((l) => l.kind).sort();
    expect(kinds).toEqual(["charge", "refund"]);
    const bal = (await db.select().from(accounts).where(eq(accounts.id, a)))[0]!.balanceMicroUsd;
    expect(bal).toBe(1_000_000);
    expect(await ledgerSum(db, a)).toBe(bal);
    const [hook] = await until("webhook", async () => ((await hooksFor(r.task.id)).length ? hooksFor(r.task.id) : null));
    expect(hook!.json).toMatchObject({ status: "failed", result: null, cost: 0, error: { message: "The upstream could not generate this video." } });
  });

  it("completes an openai-video task through polls and stores its content", async () => {
    const a = await account();
    const r = await createVideoTask(db, input(a, "vid", "a calm lake"));
    if (!r.ok) throw new Error("create");
    const t = await until("completion", async () => ((await task(r.task.id)).status === "completed" ? task(r.task.id) : null));
    expect(t.upstreamTaskId).toMatch(/^video_/);
    expect(fake.requests.filter((q) => q.path === `/v1/videos/${t.upstreamTaskId}/content`)).toHaveLength(1);
  });

  it("fails and refunds a task past its deadline", async () => {
    const a = await account();
    const r = await createVideoTask(db, input(a, "vid", "slow [never]", { timeoutS: 1 }));
    if (!r.ok) throw new Error("create");
    const t = await until("timeout", async () => ((await task(r.task.id)).status === "failed" ? task(r.task.id) : null));
    expect(t.errorMessage).toMatch(/did not finish the task within 1 seconds/);
    expect((await db.select().from(ledgerEntries).where(eq(ledgerEntries.taskId, r.task.id))).map((l) => l.kind).sort()).toEqual(["charge", "refund"]);
  });

  async function deliveryFor(taskId: string, state: string) {
    return until(`delivery ${state}`, async () => {
      const [d] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.taskId, taskId));
      return d && d.state === state ? d : null;
    });
  }

  /** The receiver's script is shared: let earlier tests' deliveries finish first. */
  async function quiet() {
    await until("no pending deliveries", async () => {
      const pending = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.state, "pending"));
      return pending.length === 0;
    });
  }

  it("retries 500, 500 then 200: three attempts, re-signed, same bytes", async () => {
    await quiet();
    receiver.setScript([{ status: 500 }, { status: 500 }, { status: 200 }], { status: 200 });
    const a = await account();
    const r = await createVideoTask(db, input(a, "vid", "x [fail]"));
    if (!r.ok) throw new Error("create");
    const d = await deliveryFor(r.task.id, "delivered");
    expect(d.attempts).toBe(3);
    const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, d.id));
    expect(attempts.map((x) => x.statusCode).sort()).toEqual([200, 500, 500]);
    const hooks = await hooksFor(r.task.id);
    expect(hooks).toHaveLength(3);
    expect(new Set(hooks.map((h) => h.rawBody.toString())).size).toBe(1);
    expect(hooks.every((h) => h.signatureOk && h.headers["x-shim-delivery"] === d.id)).toBe(true);
  });

  it("stops at once on a 400", async () => {
    await quiet();
    receiver.setScript([{ status: 400 }], { status: 200 });
    const a = await account();
    const r = await createVideoTask(db, input(a, "vid", "y [fail]"));
    if (!r.ok) throw new Error("create");
    const d = await deliveryFor(r.task.id, "stopped");
    expect(d).toMatchObject({ attempts: 1, lastStatusCode: 400 });
    await new Promise((res) => setTimeout(res, 600)); // longer than the whole compressed schedule
    expect(await hooksFor(r.task.id)).toHaveLength(1);
  });

  it("times out a slow receiver and retries", async () => {
    await quiet();
    receiver.setScript([{ status: 200, delayMs: 4000 }], { status: 200 });
    const a = await account();
    const r = await createVideoTask(db, input(a, "vid", "z [fail]"));
    if (!r.ok) throw new Error("create");
    const d = await deliveryFor(r.task.id, "delivered");
    expect(d.attempts).toBe(2);
    const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, d.id));
    expect(attempts.find((x) => x.attemptNo === 1)).toMatchObject({ statusCode: null, error: "no answer within 2000 ms" });
  });

  it("gives up after the schedule is used up", async () => {
    await quiet();
    receiver.setScript([], { status: 503 });
    const a = await account();
    const r = await createVideoTask(db, input(a, "vid", "w [fail]"));
    if (!r.ok) throw new Error("create");
    const d = await deliveryFor(r.task.id, "failed");
    expect(d.attempts).toBe(4); // the first attempt and three retries
    receiver.setScript([], { status: 200 });
    await quiet();
  });

  it("deletes media after retention", async () => {
    const key = "videos/task_old/0.mp4";
    await storage.put(key, (async function* () { yield Buffer.from("old video"); })(), "video/mp4");
    const a = await account();
    const id = newId("task");
    const past = new Date(Date.now() - 15 * 86_400_000);
    await db.insert(tasks).values({ id, accountId: a, model: "demo-video", status: "completed", progress: 100, mediaKeys: [key], createdAt: past, completedAt: past, expiresAt: new Date(Date.now() - 86_400_000) });
    expect(await runRetention(db, storage)).toBeGreaterThanOrEqual(1);
    expect(await storage.stat(key)).toBeNull();
    expect((await task(id)).mediaDeletedAt).not.toBeNull();
  });
});

describe("claiming", () => {
  it("never hands one due job to two claimers", async () => {
    const a = await account(10_000_000);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const id = newId("delivery");
      ids.push(id);
      await db.insert(webhookDeliveries).values({ id, taskId: `task_claim_${i}`, accountId: a, url: "https://x.example/", body: "{}", eventStatus: "completed", nextAttemptAt: new Date(Date.now() + 3_600_000) });
    }
    const at = new Date(Date.now() + 3_700_000);
    const claims = await Promise.all(Array.from({ length: 6 }, () => claimDueDeliveries(db, at, 5, 60_000)));
    const got = claims.flat().map((d) => d.id).filter((id) => ids.includes(id));
    expect(got.length).toBe(new Set(got).size);
    expect(new Set(got)).toEqual(new Set(ids));
    const again = await claimDueDeliveries(db, at, 50, 60_000);
    expect(again.filter((d) => ids.includes(d.id))).toHaveLength(0);
    await db.delete(webhookDeliveries).where(eq(webhookDeliveries.accountId, a));
    const t = await claimDueTasks(db, new Date(0), 10);
    expect(t).toHaveLength(0);
  });
});
