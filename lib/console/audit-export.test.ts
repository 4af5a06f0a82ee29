/**
 * The audit log out of the gateway (decision 0060): an organisation's export holds its own events
 * only (CSV and JSONL, before/after in every line), a gateway admin's holds all; an organisation
 * with an audit webhook gets each event queued in the same transaction and delivered signed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, webhookDeliveries } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { recordAudit } from "../audit/record";
import { encryptSecret } from "../crypto";
import { resetEnvCache } from "../env";
import { verifySignature, SIGNATURE_HEADER } from "../tasks/webhook-signature";
import { webhookPolicy } from "../tasks/webhook-policy";
import { claimDueDeliveries, runDelivery } from "../tasks/webhook-queue";
import { resendWebhook } from "../tasks/webhook-console";
import { startWebhookReceiver, type WebhookReceiver } from "../../tests/fakes/webhook-receiver";
import { auditExportLines, auditExportResponse } from "./audit-export";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "audit-export-unit-"));
process.env.ENCRYPTION_KEY = "unit-test-encryption-key";
resetEnvCache();

let db: DB;
let close: () => Promise<void>;
let receiver: WebhookReceiver;
const SECRET = "whsec_unit";

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
  process.env.WEBHOOK_ALLOW_HOSTS = receiver.hostPort;
  resetEnvCache();
  ({ db, close } = await createTestDb());
  await db.insert(accounts).values([
    { id: "acct_a", name: "a", auditWebhookUrl: `${receiver.url}/audit`, auditWebhookSecretEncrypted: encryptSecret(SECRET) },
    { id: "acct_b", name: "b" },
  ]);
  const actor = { actorUserId: "usr_1", actor: "owner@example.com" };
  await recordAudit(db, { ...actor, accountId: "acct_a", action: "org.update", targetType: "account", targetId: "acct_a", details: { fields: ["name"], before: { name: "a" }, after: { name: "=cmd|' /C calc'!A0" } } });
  await recordAudit(db, { ...actor, accountId: "acct_b", action: "key.revoke", targetType: "api_key", targetId: "key_b", details: { before: { revokedAt: null }, after: { revokedAt: "2026-01-01T00:00:00.000Z" } } });
  await recordAudit(db, { ...actor, action: "alias.save", targetType: "alias", targetId: "fast", details: {} });
});
afterAll(async () => {
  await close?.();
  await receiver?.close();
});

async function collect(g: AsyncGenerator<string>) {
  let s = "";
  for await (const x of g) s += x;
  return s;
}

describe("audit export", () => {
  it("JSONL: the organisation's own events, with before and after", async () => {
    const lines = (await collect(auditExportLines(db, "jsonl", { accountId: "acct_a" }))).trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: "audit.org.update", organisation_id: "acct_a", actor: "owner@example.com", before: { name: "a" }, after: { name: "=cmd|' /C calc'!A0" }, details: { fields: ["name"] } });
    expect(lines[0].id).toMatch(/^audit_\d+$/);
    // A gateway admin's export has every event, instance-wide ones included.
    const all = (await collect(auditExportLines(db, "jsonl", { accountId: null }))).trim().split("\n");
    expect(all).toHaveLength(3);
  });

  it("CSV: a header, one row per event, JSON cells quoted, formula-looking text defused", async () => {
    const csv = await collect(auditExportLines(db, "csv", { accountId: "acct_b" }));
    const rows = csv.trim().split("\r\n");
    expect(rows[0]).toBe("id,created_at,organisation_id,actor,actor_user_id,action,target_type,target_id,before,after,details");
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(',acct_b,owner@example.com,usr_1,key.revoke,api_key,key_b,"{""revokedAt"":null}","{""revokedAt"":""2026-01-01T00:00:00.000Z""}",{}');
    const a = await collect(auditExportLines(db, "csv", { accountId: "acct_a" }));
    expect(a).not.toMatch(/,"?=cmd/);
  });

  it("the download: a bad format or date is a 400, a time window filters", async () => {
    expect(() => auditExportResponse(db, new URLSearchParams("format=xml"), "acct_a")).toThrow(/format/);
    expect(() => auditExportResponse(db, new URLSearchParams("format=csv&from=nope"), "acct_a")).toThrow(/from/);
    expect(() => auditExportResponse(db, new URLSearchParams("format=csv&from=99999-01-01"), "acct_a")).toThrow(/years 1970/);
    const r = auditExportResponse(db, new URLSearchParams("format=jsonl&from=2999-01-01"), "acct_a");
    expect(r.headers.get("content-type")).toBe("application/x-ndjson");
    expect(r.headers.get("content-disposition")).toContain("audit.jsonl");
    expect(await r.text()).toBe("");
  });

  it("webhook: queued only for the organisation that set one, delivered signed with its secret", async () => {
    const queued = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.kind, "audit"));
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ accountId: "acct_a", eventStatus: "org.update", state: "pending" });
    const [d] = await claimDueDeliveries(db, new Date(Date.now() + 1000), 10, 30_000);
    const outcome = await runDelivery(d!, { db, ...webhookPolicy(), timeoutMs: 5000, scheduleS: [1] });
    expect(outcome.result).toBe("delivered");
    const [hook] = await receiver.waitFor(1, 5000);
    expect(hook!.signatureOk).toBe(true);
    expect(verifySignature(hook!.headers[SIGNATURE_HEADER] as string, hook!.rawBody, SECRET).ok).toBe(true);
    expect(hook!.json).toMatchObject({ type: "audit.org.update", organisation_id: "acct_a", before: { name: "a" } });

    // A resend from the Webhooks page is still signed with the organisation's audit secret.
    const again = await resendWebhook(db, "acct_a", d!.id);
    expect(again.ok).toBe(true);
    const [copy] = await claimDueDeliveries(db, new Date(Date.now() + 1000), 10, 30_000);
    expect(copy).toMatchObject({ kind: "audit", accountId: "acct_a" });
    expect((await runDelivery(copy!, { db, ...webhookPolicy(), timeoutMs: 5000, scheduleS: [1] })).result).toBe("delivered");
    const hooks = await receiver.waitFor(2, 5000);
    expect(hooks[1]!.signatureOk).toBe(true);
  });
});
