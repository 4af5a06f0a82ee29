/**
 * Content logs on a real database: sealed at rest and redacted before sealing (nothing a
 * redaction matched is in the row, the inspector's read or the JSONL export), scoped to the
 * organisation (and to a member's own requests), deleted at each organisation's retention; the
 * settings are checked, audited with before/after, and a key can only narrow them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DB } from "../../db/client";
import { accounts, apiKeys, auditLog, contentLogs } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { resetEnvCache } from "../env";
import { contentLogPolicy, effectiveContentLogMode } from "../keys/content-log-policy";
import type { ContentRecord } from "../views";
import { contentLogSettings, purgeContentLogs, setContentLogSettings, setKeyContentLog } from "./settings";
import { deleteExpiredContentLogs, exportContentLogs, readContentLog, writeContentLog, type ContentLogTarget } from "./store";

vi.mock("../invalidation", () => ({ notifyInvalidation: vi.fn(async () => undefined) }));

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "content-logs-unit-"));
process.env.ENCRYPTION_KEY = "unit-test-encryption-key";
resetEnvCache();

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await createTestDb());
  await db.insert(accounts).values([
    { id: "acct_a", name: "a", contentLogMode: "full", contentLogRedact: ["PROJECT-\\d+"] },
    { id: "acct_b", name: "b", contentLogMode: "full", contentLogRetentionDays: 7 },
  ]);
  await db.insert(apiKeys).values([
    { id: "key_a1", accountId: "acct_a", hash: "h1", prefix: "sk-", last4: "aaaa", createdByUserId: "usr_1" },
    { id: "key_a2", accountId: "acct_a", hash: "h2", prefix: "sk-", last4: "bbbb", createdByUserId: "usr_2" },
  ]);
});
afterAll(async () => close?.());

const SECRETS = ["sk-live-0123456789abcdefghij", "4242 4242 4242 4242", "jane@example.com", "PROJECT-77"];
const record = (text: string): ContentRecord => ({
  v: 1,
  request: { model: "m", system: `system with ${SECRETS[2]}`, messages: [{ role: "user", parts: [{ type: "text", text }, { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }] }], tools: ["lookup"] },
  answer: { text: `answer mentions ${SECRETS[3]}`, toolCalls: [{ id: "c1", name: "lookup", arguments: JSON.stringify({ card: SECRETS[1] }) }], stopReason: "tool_calls" },
});
const target = (accountId: string, requestId: string, keyId: string | null = null): ContentLogTarget => ({
  accountId,
  keyId,
  userId: null,
  requestId,
  policy: { redact: accountId === "acct_a" ? ["PROJECT-\\d+"] : [], builtins: ["api_keys", "card_numbers", "emails"] },
});

describe("content logs at rest", () => {
  it("sealed; nothing a redaction matched survives in the row, the read or the export", async () => {
    await writeContentLog(db, target("acct_a", "req_1", "key_a1"), { model: "m", stream: true }, record(`key ${SECRETS[0]} card ${SECRETS[1]}`));
    const [row] = await db.select().from(contentLogs).where(eq(contentLogs.requestId, "req_1"));
    expect(row!.sealed.startsWith("v1.")).toBe(true);
    expect(row!.sealed).not.toContain("answer mentions");

    const read = await readContentLog(db, "acct_a", "req_1");
    expect(read?.stream).toBe(true);
    expect(read?.content.request.messages[0]!.parts[0]).toEqual({ type: "text", text: "key [REDACTED:api_key] card [REDACTED:card_number]" });
    expect(read?.content.request.messages[0]!.parts[1]).toMatchObject({ type: "image", data: "iVBORw0KGgo=" });
    expect(read?.content.answer).toMatchObject({ text: "answer mentions [REDACTED]", stopReason: "tool_calls" });

    let exported = "";
    for await (const line of exportContentLogs(db, "acct_a", {})) exported += line;
    const lines = exported.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ request_id: "req_1", model: "m", key_id: "key_a1", answer: { text: "answer mentions [REDACTED]" } });
    const plain = JSON.stringify(read) + exported;
    for (const s of SECRETS) expect(plain).not.toContain(s);
    for (const re of [/sk-live-\w+/, /jane@example\.com/, /PROJECT-\d+/, /4242[ -]?4242/]) expect(plain).not.toMatch(re);
  });

  it("another organisation's request is not found; a member reaches only their own keys' requests", async () => {
    await writeContentLog(db, target("acct_a", "req_2", "key_a2"), { model: "m", stream: false }, record("hello"));
    expect(await readContentLog(db, "acct_b", "req_1")).toBeNull();
    expect(await readContentLog(db, "acct_a", "req_2", "usr_1")).toBeNull();
    expect(await readContentLog(db, "acct_a", "req_2", "usr_2")).not.toBeNull();
    let b = "";
    for await (const line of exportContentLogs(db, "acct_b", {})) b += line;
    expect(b).toBe("");
  });

  it("checked again when written: an organisation switched off, or a narrowed key, gets nothing", async () => {
    await db.insert(accounts).values({ id: "acct_off", name: "off" });
    await writeContentLog(db, target("acct_off", "req_off"), { model: "m", stream: false }, record("x"));
    expect(await db.select().from(contentLogs).where(eq(contentLogs.accountId, "acct_off"))).toEqual([]);
    await db.update(apiKeys).set({ contentLogMode: "off" }).where(eq(apiKeys.id, "key_a2"));
    await writeContentLog(db, target("acct_a", "req_narrow", "key_a2"), { model: "m", stream: false }, record("x"));
    expect(await readContentLog(db, "acct_a", "req_narrow")).toBeNull();
    await db.update(apiKeys).set({ contentLogMode: null }).where(eq(apiKeys.id, "key_a2"));
  });

  it("a second write for the same request is ignored", async () => {
    await writeContentLog(db, target("acct_a", "req_2"), { model: "m", stream: false }, record("again"));
    expect((await readContentLog(db, "acct_a", "req_2"))!.content.request.messages[0]!.parts[0]).toEqual({ type: "text", text: "hello" });
  });

  it("retention: each organisation's own days", async () => {
    await writeContentLog(db, target("acct_a", "old_a"), { model: "m", stream: false }, record("x"));
    await writeContentLog(db, target("acct_b", "old_b"), { model: "m", stream: false }, record("x"));
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
    await db.update(contentLogs).set({ createdAt: tenDaysAgo }).where(eq(contentLogs.requestId, "old_a"));
    await db.update(contentLogs).set({ createdAt: tenDaysAgo }).where(eq(contentLogs.requestId, "old_b"));
    // acct_a keeps 30 days, acct_b 7.
    expect(await deleteExpiredContentLogs(db)).toBe(1);
    expect(await readContentLog(db, "acct_a", "old_a")).not.toBeNull();
    expect(await readContentLog(db, "acct_b", "old_b")).toBeNull();
    // Retention shortened: the next pass deletes what is now too old.
    await db.update(accounts).set({ contentLogRetentionDays: 5 }).where(eq(accounts.id, "acct_a"));
    expect(await deleteExpiredContentLogs(db)).toBe(1);
    expect(await readContentLog(db, "acct_a", "old_a")).toBeNull();
    await db.update(accounts).set({ contentLogRetentionDays: 30 }).where(eq(accounts.id, "acct_a"));
  });
});

describe("content log settings", () => {
  const owner = { id: "usr_1", email: "owner@example.com", accountId: "acct_b" };

  it("saved, audited with before and after; says it applies to future requests only", async () => {
    await db.update(accounts).set({ contentLogMode: "off" }).where(eq(accounts.id, "acct_b"));
    const v = await setContentLogSettings(db, owner, { mode: "full", retentionDays: 14, redact: [" secret-\\w+ "], builtins: ["emails"] });
    expect(v).toMatchObject({ mode: "full", retentionDays: 14, redact: ["secret-\\w+"], builtins: ["emails"] });
    expect(v.note).toMatch(/from now on/);
    const [a] = await db.select().from(auditLog).where(eq(auditLog.action, "org.content_logs"));
    expect(a).toMatchObject({ accountId: "acct_b", actor: "owner@example.com", targetId: "acct_b" });
    expect(a!.details).toMatchObject({ before: { contentLogMode: "off", contentLogRetentionDays: 7 }, after: { contentLogMode: "full", contentLogRetentionDays: 14, contentLogBuiltins: ["emails"] } });
    expect(await contentLogSettings(db, "acct_b")).toMatchObject({ mode: "full", retentionDays: 14 });
  });

  it("refuses a pattern that does not compile or matches the empty string, naming it", async () => {
    await expect(setContentLogSettings(db, owner, { mode: "full", retentionDays: 14, redact: ["ok", "("], builtins: [] })).rejects.toThrow(/redact\[1\]/);
    await expect(setContentLogSettings(db, owner, { mode: "full", retentionDays: 14, redact: [".*"], builtins: [] })).rejects.toThrow(/empty string/);
  });

  it("a key narrows, never widens; another organisation's key is not found", async () => {
    expect(effectiveContentLogMode("full", "metadata")).toBe("metadata");
    expect(effectiveContentLogMode("off", "full")).toBe("off");
    expect(effectiveContentLogMode("full", null)).toBe("full");
    const acct = { contentLogMode: "full" as const, contentLogRedact: ["x+"], contentLogBuiltins: ["emails"] };
    expect(contentLogPolicy(acct, null)).toEqual({ redact: ["x+"], builtins: ["emails"] });
    expect(contentLogPolicy(acct, "off")).toBeNull();
    expect(contentLogPolicy({ ...acct, contentLogMode: "metadata" }, "full")).toBeNull();

    const a = { id: "usr_1", email: "owner@example.com", accountId: "acct_a" };
    expect(await setKeyContentLog(db, a, "key_a1", "metadata")).toMatchObject({ contentLogMode: "metadata" });
    const [row] = await db.select().from(auditLog).where(eq(auditLog.action, "key.content_logs"));
    expect(row!.details).toEqual({ before: { contentLogMode: null }, after: { contentLogMode: "metadata" } });
    await expect(setKeyContentLog(db, { ...a, accountId: "acct_b" }, "key_a1", null)).rejects.toThrow(/No such key/);
  });

  it("purge deletes every content log of the organisation only", async () => {
    await writeContentLog(db, target("acct_b", "purge_b"), { model: "m", stream: false }, record("x"));
    expect((await purgeContentLogs(db, { id: "usr_1", email: "o@example.com", accountId: "acct_b" })).deleted).toBeGreaterThan(0);
    expect(await readContentLog(db, "acct_b", "purge_b")).toBeNull();
    expect(await readContentLog(db, "acct_a", "req_1")).not.toBeNull();
  });
});
