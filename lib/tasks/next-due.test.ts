/** An idle worker sleeps until `nextDueAt`: the earliest task poll or webhook attempt, a leased one at its lease's end. */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, tasks, webhookDeliveries } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { nextDueAt } from "./worker";

let db: DB;
let close: () => Promise<void>;
const T0 = Date.now();
const at = (s: number) => new Date(T0 + s * 1000);

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  await db.insert(accounts).values({ id: "acct_due", name: "due" });
});
afterAll(() => close());

it("is null with nothing pending, and ignores what has ended", async () => {
  expect(await nextDueAt(db)).toBeNull();
  await db.insert(tasks).values({ id: "task_done", accountId: "acct_due", model: "m", status: "completed", nextPollAt: at(1) });
  await db.insert(webhookDeliveries).values({ id: "whd_done", taskId: "t", url: "https://x.example/", body: "{}", eventStatus: "completed", state: "delivered", nextAttemptAt: at(1) });
  expect(await nextDueAt(db)).toBeNull();
});

it("is the earliest pending job, a leased one when its lease ends", async () => {
  await db.insert(webhookDeliveries).values({ id: "whd_later", taskId: "t", url: "https://x.example/", body: "{}", eventStatus: "completed", nextAttemptAt: at(60) });
  expect((await nextDueAt(db))?.getTime()).toBe(at(60).getTime());
  await db.insert(tasks).values({ id: "task_leased", accountId: "acct_due", model: "m", status: "in_progress", nextPollAt: at(10), lockedUntil: at(40) });
  expect((await nextDueAt(db))?.getTime()).toBe(at(40).getTime());
  await db.insert(tasks).values({ id: "task_soon", accountId: "acct_due", model: "m", status: "queued", nextPollAt: at(30) });
  expect((await nextDueAt(db))?.getTime()).toBe(at(30).getTime());
});
