/** Task money and state rules on a real database (PostgreSQL with DATABASE_URL, else PGlite). */
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, ledgerEntries, tasks, webhookDeliveries } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { applyLedgerChange, ledgerSum } from "../billing/ledger";
import { resetEnvCache } from "../env";
import { newId } from "../ids";
import { completeTask, createVideoTask, failTask, recordProgress, type CreateTaskInput } from "./task-lifecycle";
import { renderTask, renderVideo } from "./task-render";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "tasks-unit-"));
process.env.ENCRYPTION_KEY = "unit-test-encryption-key";
process.env.PUBLIC_BASE_URL = "https://gw.example.com";
resetEnvCache();

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(() => close());

async function account(balanceMicro: number): Promise<string> {
  const id = newId("account");
  await db.insert(accounts).values({ id, name: id });
  if (balanceMicro) await applyLedgerChange(db, { accountId: id, deltaMicroUsd: balanceMicro, kind: "admin_credit", idempotencyKey: `seed:${id}` });
  return id;
}

function input(accountId: string, extra: Partial<CreateTaskInput> = {}): CreateTaskInput {
  return {
    accountId,
    keyId: null,
    userId: null,
    source: "api",
    model: "demo-video",
    modelRowId: "mdl_x",
    upstreamId: "demo",
    upstreamModel: "demo-video",
    family: "t2v",
    job: { prompt: "a cat", seconds: "10", size: "1280x720", aspectRatio: null, images: [], videoUrl: null },
    webhookUrl: null,
    webhookSecret: null,
    holdMicroUsd: 250_000,
    price: { perVideo: 250_000 },
    requestId: newId("request"),
    timeoutS: 3600,
    leaseMs: 60_000,
    ...extra,
  };
}

const bal = async (id: string) => (await db.select().from(accounts).where(eq(accounts.id, id)))[0]!.balanceMicroUsd;
const ledger = (id: string) => db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, id));

describe("video task money", () => {
  it("charges at submission together with the task row", async () => {
    const a = await account(1_000_000);
    const r = await createVideoTask(db, input(a));
    expect(r).toMatchObject({ ok: true, balanceAfterMicroUsd: 750_000 });
    expect(await bal(a)).toBe(750_000);
    const rows = await ledger(a);
    expect(rows.filter((l) => l.kind === "charge")).toHaveLength(1);
    expect(rows.find((l) => l.kind === "charge")).toMatchObject({ deltaMicroUsd: -250_000, taskId: r.ok ? r.task.id : "" });
  });

  it("refuses a short balance with no task, no ledger row", async () => {
    const a = await account(100_000);
    expect(await createVideoTask(db, input(a))).toEqual({ ok: false, reason: "insufficient_balance" });
    expect(await db.select().from(tasks).where(eq(tasks.accountId, a))).toHaveLength(0);
    expect((await ledger(a)).filter((l) => l.kind !== "admin_credit")).toHaveLength(0);
  });

  it("admits exactly as many concurrent submissions as the balance covers", async () => {
    const a = await account(1_000_000);
    const results = await Promise.all(Array.from({ length: 10 }, () => createVideoTask(db, input(a))));
    expect(results.filter((r) => r.ok)).toHaveLength(4);
    expect(await bal(a)).toBe(0);
    expect(await ledgerSum(db, a)).toBe(0);
  });

  it("enforces the key's spend limit", async () => {
    const a = await account(1_000_000);
    const keyId = newId("key");
    await db.insert(apiKeys).values({ id: keyId, accountId: a, hash: keyId, prefix: "sk-x", last4: "abcd", limitMicroUsd: 300_000 });
    expect((await createVideoTask(db, input(a, { keyId }))).ok).toBe(true);
    expect(await createVideoTask(db, input(a, { keyId }))).toEqual({ ok: false, reason: "key_limit_exceeded" });
    expect(await bal(a)).toBe(750_000);
  });

  it("refunds a failure exactly once, however many finalizers race", async () => {
    const a = await account(1_000_000);
    const r = await createVideoTask(db, input(a));
    if (!r.ok) throw new Error("create");
    const results = await Promise.all([
      failTask(db, r.task.id, "upstream failed"),
      failTask(db, r.task.id, "timed out"),
      failTask(db, r.task.id, "upstream failed again"),
      completeTask(db, r.task.id, { mediaKeys: ["x"], costMicroUsd: 250_000 }),
    ]);
    expect(results.filter((x) => x !== null)).toHaveLength(1);
    const rows = await ledger(a);
    const refunds = rows.filter((l) => l.kind === "refund");
    const won = results.find((x) => x !== null)!;
    if (won.status === "failed") {
      expect(refunds).toHaveLength(1);
      expect(refunds[0]).toMatchObject({ deltaMicroUsd: 250_000, idempotencyKey: `task:${r.task.id}:refund` });
      expect(await bal(a)).toBe(1_000_000);
      expect(renderTask(won)).toMatchObject({ status: "failed", cost: 0, result: null, error: { message: won.errorMessage } });
    } else {
      expect(refunds).toHaveLength(0);
    }
    expect(await ledgerSum(db, a)).toBe(await bal(a));
  });

  it("keeps final states final and progress monotonic", async () => {
    const a = await account(1_000_000);
    const r = await createVideoTask(db, input(a));
    if (!r.ok) throw new Error("create");
    await recordProgress(db, r.task.id, { status: "in_progress", progress: 40, nextPollAt: new Date() });
    await recordProgress(db, r.task.id, { status: "queued", progress: 20, nextPollAt: new Date() });
    let [t] = await db.select().from(tasks).where(eq(tasks.id, r.task.id));
    expect(t).toMatchObject({ status: "in_progress", progress: 40 });
    const done = await completeTask(db, r.task.id, { mediaKeys: ["videos/x/0.mp4"], costMicroUsd: 250_000 });
    expect(done).not.toBeNull();
    expect(await failTask(db, r.task.id, "late failure")).toBeNull();
    await recordProgress(db, r.task.id, { status: "in_progress", progress: 50, nextPollAt: new Date() });
    [t] = await db.select().from(tasks).where(eq(tasks.id, r.task.id));
    expect(t).toMatchObject({ status: "completed", progress: 100 });
    expect((await ledger(a)).filter((l) => l.kind === "refund")).toHaveLength(0);
    const video = renderVideo(t!);
    expect(video).toMatchObject({ id: r.task.id, object: "video", status: "completed", progress: 100, seconds: "10", size: "1280x720", error: null });
    const task = renderTask(t!) as { cost: number; result: { videos: { url: string[]; expires_at: number }[] } };
    expect(task.cost).toBe(0.25);
    expect(task.result.videos[0]!.url[0]).toMatch(new RegExp(`^https://gw\\.example\\.com/v1/media/${r.task.id}/video-0\\.mp4\\?expires=\\d+&signature=[0-9a-f]{64}$`));
    expect(task.result.videos[0]!.expires_at - (video.completed_at as number)).toBe(14 * 86_400);
  });

  it("settles a duration-priced task on the real duration and returns the rest", async () => {
    const a = await account(1_000_000);
    const r = await createVideoTask(db, input(a, {
        holdMicroUsd: 500_000,
        price: { perSecond: 25_000 },
        family: "extend",
        job: { prompt: "longer", seconds: null, size: "1280x720", aspectRatio: null, images: [], videoUrl: "https://example.com/v.mp4" },
      }));
    if (!r.ok) throw new Error("create");
    const done = await completeTask(db, r.task.id, { mediaKeys: ["k"], costMicroUsd: 300_000, seconds: "12" });
    expect(done).toMatchObject({ seconds: "12", costMicroUsd: 300_000 });
    expect(await bal(a)).toBe(700_000);
    expect((await ledger(a)).find((l) => l.kind === "release")).toMatchObject({ deltaMicroUsd: 200_000 });
  });

  it("queues one webhook per final state with the Task object as its body", async () => {
    const a = await account(1_000_000);
    const r = await createVideoTask(db, input(a, { webhookUrl: "https://hooks.example.com/x", webhookSecret: "s3cret-value" }));
    if (!r.ok) throw new Error("create");
    expect(r.task.webhookSecretEncrypted).not.toContain("s3cret-value");
    await failTask(db, r.task.id, "boom");
    await failTask(db, r.task.id, "boom again");
    const d = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.taskId, r.task.id));
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ eventStatus: "failed", state: "pending", url: "https://hooks.example.com/x" });
    expect(JSON.parse(d[0]!.body)).toMatchObject({ id: r.task.id, object: "task", status: "failed", cost: 0, result: null, error: { message: "boom" } });
  });
});
