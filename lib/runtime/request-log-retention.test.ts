/** Request-log retention on a real database: old rows go in batches, young ones stay. */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, requestLogs } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { resetEnvCache } from "../env";
import { newId } from "../ids";
import { deleteExpiredRequestLogs } from "./request-log-retention";

process.env.REQUEST_LOG_RETENTION_DAYS = "90";
resetEnvCache();

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await createTestDb());
  await db.insert(accounts).values({ id: "acct_r", name: "r" });
});
afterAll(async () => close?.());

const row = (daysAgo: number) => ({
  requestId: newId("request"),
  accountId: "acct_r",
  method: "POST",
  route: "/v1/chat/completions",
  status: 200,
  settlement: "completed" as const,
  createdAt: new Date(Date.now() - daysAgo * 86_400_000),
});

it("deletes rows older than REQUEST_LOG_RETENTION_DAYS in batches and keeps the rest", async () => {
  await db.insert(requestLogs).values([...Array.from({ length: 23 }, () => row(120)), row(91), ...Array.from({ length: 5 }, () => row(89)), row(0)]);
  expect(await deleteExpiredRequestLogs(db, Date.now(), 10)).toBe(24);
  const left = await db.select({ createdAt: requestLogs.createdAt }).from(requestLogs);
  expect(left).toHaveLength(6);
  expect(left.every((r) => r.createdAt.getTime() > Date.now() - 90 * 86_400_000)).toBe(true);
  expect(await deleteExpiredRequestLogs(db)).toBe(0);
});
