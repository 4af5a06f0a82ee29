import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, webhookDeliveries } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { startWebhookReceiver, type WebhookReceiver } from "../../tests/fakes/webhook-receiver";
import { resetEnvCache } from "../env";
import { newId } from "../ids";
import { createGuardedAgent, loopbackOnlyConnector } from "./guarded-dispatcher";
import { makePolicy } from "./ssrf";
import { listWebhookDeliveries, resendWebhook, sendTestWebhook } from "./webhook-console";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "whc-unit-"));
process.env.ENCRYPTION_KEY = "unit-test-encryption-key";
process.env.PUBLIC_BASE_URL = "https://gw.example.com";
process.env.WEBHOOK_TIMEOUT_MS = "1000";
resetEnvCache();

let db: DB;
let close: () => Promise<void>;
let receiver: WebhookReceiver;
let deps: { policy: ReturnType<typeof makePolicy>; dispatcher: ReturnType<typeof createGuardedAgent> };
let accountId: string;

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  receiver = await startWebhookReceiver({ secret: "console-secret" });
  const policy = makePolicy({ publicBaseUrl: "https://gw.example.com", allowHosts: [receiver.hostPort] });
  deps = { policy, dispatcher: createGuardedAgent({ policy, baseConnect: loopbackOnlyConnector() }) };
  accountId = newId("account");
  await db.insert(accounts).values({ id: accountId, name: "a" });
});
afterAll(async () => {
  await receiver.close();
  await close();
});

describe("webhook console functions", () => {
  it("sends a signed test event at once and logs the attempt", async () => {
    receiver.setScript([{ status: 204 }]);
    const r = await sendTestWebhook(db, accountId, { url: receiver.url, secret: "console-secret" }, deps);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.outcome.result).toBe("delivered");
    const got = receiver.received.at(-1)!;
    expect(got.signatureOk).toBe(true);
    expect(got.json).toMatchObject({ object: "task", status: "completed", test: true });
    expect((got.json as { id: string }).id).toMatch(/^task_test_/);
    expect(r.value.delivery).toMatchObject({ isTest: true, state: "delivered", attempts: 1, attemptLog: [{ attemptNo: 1, statusCode: 204, error: null }] });
  });

  it("records a failed test event without retrying it", async () => {
    receiver.setScript([{ status: 500 }]);
    const r = await sendTestWebhook(db, accountId, { url: receiver.url }, deps);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.delivery).toMatchObject({ state: "failed", attempts: 1, lastStatusCode: 500, attemptLog: [{ statusCode: 500, error: "receiver answered 500" }] });
    expect(receiver.received.at(-1)!.headers["x-shim-signature"]).toBeUndefined();
  });

  it("refuses hostile URLs and bad secrets", async () => {
    expect(await sendTestWebhook(db, accountId, { url: "http://169.254.169.254/" }, deps)).toMatchObject({ ok: false, error: { field: "url" } });
    expect(await sendTestWebhook(db, accountId, { url: receiver.url, secret: "short" }, deps)).toMatchObject({ ok: false, error: { field: "secret" } });
  });

  it("resends a delivery as a new one with the same body, for its owner only", async () => {
    const id = newId("delivery");
    await db.insert(webhookDeliveries).values({ id, taskId: "task_abc", accountId, url: receiver.url, body: '{"id":"task_abc"}', eventStatus: "failed", state: "failed", attempts: 7 });
    expect(await resendWebhook(db, "acct_other", id)).toEqual({ ok: false, error: "not_found" });
    const r = await resendWebhook(db, accountId, id);
    if (!r.ok) throw new Error(r.error);
    expect(r.value.delivery).toMatchObject({ taskId: "task_abc", state: "pending", attempts: 0, url: receiver.url });
    const [copy] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, r.value.delivery.id));
    expect(copy!.body).toBe('{"id":"task_abc"}');
    const list = await listWebhookDeliveries(db, accountId, { taskId: "task_abc" });
    expect(list.map((d) => d.id).sort()).toEqual([id, r.value.delivery.id].sort());
    expect(await listWebhookDeliveries(db, "acct_other")).toEqual([]);
  });

  it("does not queue a second pending delivery while one is pending (a second or concurrent resend returns it)", async () => {
    const id = newId("delivery");
    await db.insert(webhookDeliveries).values({ id, taskId: "task_twice", accountId, url: receiver.url, body: '{"id":"task_twice"}', eventStatus: "completed", state: "failed", attempts: 7 });
    const [a, b, c] = await Promise.all([resendWebhook(db, accountId, id), resendWebhook(db, accountId, id), resendWebhook(db, accountId, id)]);
    const ids = [a, b, c].map((r) => (r.ok ? r.value.delivery.id : r.error));
    expect(new Set(ids).size).toBe(1);
    const again = await resendWebhook(db, accountId, id);
    expect(again.ok && again.value.delivery.id).toBe(ids[0]);
    const pending = (await listWebhookDeliveries(db, accountId, { taskId: "task_twice" })).filter((d) => d.state === "pending");
    expect(pending).toHaveLength(1);
  });
});

describe("resending a pending delivery", () => {
  it("retries the pending one (itself or an earlier resend) instead of adding another", async () => {
    const id = newId("delivery");
    await db.insert(webhookDeliveries).values({ id, taskId: "task_pend", accountId, url: receiver.url, body: "{}", eventStatus: "completed", state: "pending", attempts: 2, nextAttemptAt: new Date(Date.now() + 3_600_000) });
    const r = await resendWebhook(db, accountId, id);
    if (!r.ok) throw new Error(r.error);
    expect(r.value.retried).toBe(true);
    expect(r.value.delivery.id).toBe(id);
    expect(new Date(r.value.delivery.nextAttemptAt!).getTime()).toBeLessThanOrEqual(Date.now());
    // A failed delivery resent twice: one new copy, then that copy is retried.
    const failed = newId("delivery");
    await db.insert(webhookDeliveries).values({ id: failed, taskId: "task_fail2", accountId, url: receiver.url, body: "{}", eventStatus: "failed", state: "failed", attempts: 7 });
    const first = await resendWebhook(db, accountId, failed);
    const second = await resendWebhook(db, accountId, failed);
    if (!first.ok || !second.ok) throw new Error("resend refused");
    expect(first.value.retried).toBe(false);
    expect(second.value.retried).toBe(true);
    expect(second.value.delivery.id).toBe(first.value.delivery.id);
    expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.taskId, "task_fail2"))).toHaveLength(2);
    expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.taskId, "task_pend"))).toHaveLength(1);
  });
});
