/** The store on a real database: sealed round trip, account scope, item lookup, retention, pagination. */
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../../db/client";
import { accounts, storedResponses } from "../../../db/schema";
import { createTestDb } from "../../../db/testing";
import { resetEnvCache } from "../../env";
import { sweepBackgroundResponses } from "./background";
import { pageItems } from "./routes";
import { deleteExpiredResponses, findStoredItems, getStoredResponse, queueStoredResponse, storedResponsesIdle, writeStoredResponse } from "./store";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "responses-unit-"));
process.env.ENCRYPTION_KEY = "unit-test-encryption-key";
process.env.RESPONSES_RETENTION_DAYS = "30";
resetEnvCache();

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await createTestDb());
  await db.insert(accounts).values([
    { id: "acct_a", name: "a" },
    { id: "acct_b", name: "b" },
  ]);
});
afterAll(async () => close?.());

const record = (id: string, accountId: string, text: string) => ({
  id,
  accountId,
  keyId: null,
  status: "completed" as const,
  model: "m",
  upstreamId: "up",
  response: { id, object: "response", status: "completed", output: [{ id: `msg_out_${id}`, type: "message", role: "assistant", content: [{ type: "output_text", text }] }] },
  input: [{ id: `msg_in_${id}`, type: "message", role: "user", content: [{ type: "input_text", text: `prompt ${text}` }] }],
  itemIds: [`msg_in_${id}`, `msg_out_${id}`],
});

describe("stored responses store", () => {
  it("round-trips sealed, scoped to the account", async () => {
    await writeStoredResponse(db, record("resp_1", "acct_a", "secret words"));
    const [row] = await db.select().from(storedResponses);
    expect(row!.sealed).not.toContain("secret words");
    expect((await getStoredResponse(db, { accountId: "acct_a", memberScope: null }, "resp_1"))!.response.output).toHaveLength(1);
    expect(await getStoredResponse(db, { accountId: "acct_b", memberScope: null }, "resp_1", { retryMiss: false })).toBeNull();
    const items = await findStoredItems(db, { accountId: "acct_a", memberScope: null }, ["msg_out_resp_1"]);
    expect(items.get("msg_out_resp_1")!.item.type).toBe("message");
    expect((await findStoredItems(db, { accountId: "acct_b", memberScope: null }, ["msg_out_resp_1"])).size).toBe(0);
  });

  it("a queued write is visible to readers of the same process at once", async () => {
    queueStoredResponse(db, record("resp_q", "acct_a", "queued"));
    expect((await getStoredResponse(db, { accountId: "acct_a", memberScope: null }, "resp_q", { retryMiss: false }))?.id).toBe("resp_q");
    queueStoredResponse(db, record("resp_q2", "acct_a", "queued"));
    expect((await findStoredItems(db, { accountId: "acct_a", memberScope: null }, ["msg_in_resp_q2"])).size).toBe(1);
    await storedResponsesIdle();
  });

  it("deletes rows past RESPONSES_RETENTION_DAYS and hides them before", async () => {
    await writeStoredResponse(db, record("resp_old", "acct_a", "old"));
    await db.update(storedResponses).set({ createdAt: new Date(Date.now() - 31 * 86_400_000) }).where(eqId("resp_old"));
    expect(await getStoredResponse(db, { accountId: "acct_a", memberScope: null }, "resp_old", { retryMiss: false })).toBeNull();
    expect(await deleteExpiredResponses(db)).toBe(1);
    expect(await getStoredResponse(db, { accountId: "acct_a", memberScope: null }, "resp_1", { retryMiss: false })).not.toBeNull();
  });

  it("fails a background run whose instance stopped touching it", async () => {
    await writeStoredResponse(db, { ...record("resp_bg", "acct_a", "bg"), status: "in_progress", background: true });
    await db.update(storedResponses).set({ updatedAt: new Date(Date.now() - 60_000) }).where(eqId("resp_bg"));
    await writeStoredResponse(db, { ...record("resp_bg2", "acct_a", "bg"), status: "in_progress", background: true });
    expect(await sweepBackgroundResponses(db)).toBe(1);
    expect((await getStoredResponse(db, { accountId: "acct_a", memberScope: null }, "resp_bg", { retryMiss: false }))!.status).toBe("failed");
    expect((await getStoredResponse(db, { accountId: "acct_a", memberScope: null }, "resp_bg2", { retryMiss: false }))!.status).toBe("in_progress");
  });

  it("pages input items as OpenAI's list", () => {
    const items = ["a", "b", "c", "d", "e"].map((id) => ({ id }));
    const page = (q: string) => {
      const r = pageItems(items, new URLSearchParams(q));
      if (!r.ok) throw new Error(r.error.message);
      return r.value as { data: Array<{ id: string }>; has_more: boolean; first_id: string; last_id: string };
    };
    expect(page("").data.map((i) => i.id)).toEqual(["e", "d", "c", "b", "a"]);
    expect(page("order=asc&limit=2")).toMatchObject({ data: [{ id: "a" }, { id: "b" }], has_more: true, first_id: "a", last_id: "b" });
    expect(page("order=asc&limit=2&after=b").data.map((i) => i.id)).toEqual(["c", "d"]);
    expect(page("order=asc&after=d")).toMatchObject({ data: [{ id: "e" }], has_more: false });
    expect(page("order=asc&limit=2&before=e").data.map((i) => i.id)).toEqual(["c", "d"]);
    expect(page("limit=2&after=d").data.map((i) => i.id)).toEqual(["c", "b"]);
    expect(pageItems(items, new URLSearchParams("after=zz")).ok).toBe(false);
    expect(pageItems(items, new URLSearchParams("order=up")).ok).toBe(false);
    expect(pageItems(items, new URLSearchParams("limit=101")).ok).toBe(false);
  });
});

function eqId(id: string) {
  return eq(storedResponses.id, id);
}
