/**
 * Alerts on a real database (migration 0012, decision 0029): low balance raised once per
 * crossing by the accounts trigger under 50 concurrent debits, re-armed above the threshold;
 * raiseAlert once per dedupe key under concurrency; two instances dispatching the same alert
 * send one email per recipient (real SMTP server on loopback) and one signed webhook.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, alerts, memberships, users, webhookDeliveries } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { startSmtpInbox, type SmtpInbox } from "../../tests/fakes/smtp-inbox";
import { startWebhookReceiver, type WebhookReceiver } from "../../tests/fakes/webhook-receiver";
import { applyLedgerChange } from "../billing/ledger";
import { encryptSecret } from "../crypto";
import { resetEnvCache } from "../env";
import { newId } from "../ids";
import { createGuardedAgent, loopbackOnlyConnector } from "../tasks/guarded-dispatcher";
import { makePolicy } from "../tasks/ssrf";
import { claimDueDeliveries, runDelivery } from "../tasks/webhook-queue";
import { dispatchAlerts } from "../tasks/alert-delivery";
import { raiseAlert } from "./raise";

let db: DB;
let close: () => Promise<void>;
let inbox: SmtpInbox;
let receiver: WebhookReceiver;
const savedSmtp = process.env.SMTP_URL;

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  inbox = await startSmtpInbox();
  receiver = await startWebhookReceiver({ secret: "alert-secret" });
  process.env.SMTP_URL = inbox.url;
  resetEnvCache();
});
afterAll(async () => {
  if (savedSmtp === undefined) delete process.env.SMTP_URL;
  else process.env.SMTP_URL = savedSmtp;
  resetEnvCache();
  await inbox.close();
  await receiver.close();
  await close();
});

async function org(opts: { usd: number; thresholdUsd?: number; webhook?: boolean }) {
  const accountId = newId("account");
  await db.insert(accounts).values({
    id: accountId,
    name: `Org ${accountId.slice(-4)}`,
    lowBalanceThresholdMicroUsd: opts.thresholdUsd === undefined ? null : opts.thresholdUsd * 1e6,
    alertWebhookUrl: opts.webhook ? `${receiver.url}/alerts` : null,
    alertWebhookSecretEncrypted: opts.webhook ? encryptSecret("alert-secret") : null,
  });
  const people: string[] = [];
  for (const role of ["owner", "billing", "member"] as const) {
    const userId = newId("user");
    const email = `${role}-${userId.slice(-6).toLowerCase()}@example.com`;
    await db.insert(users).values({ id: userId, accountId, email });
    await db.insert(memberships).values({ accountId, userId, role });
    people.push(email);
  }
  if (opts.usd > 0) await applyLedgerChange(db, { accountId, deltaMicroUsd: opts.usd * 1e6, kind: "admin_credit", idempotencyKey: `seed:${accountId}`, note: "seed" });
  return { accountId, owner: people[0], billing: people[1], member: people[2] };
}

const debit = (accountId: string, micro: number, key: string) =>
  applyLedgerChange(db, { accountId, deltaMicroUsd: -micro, kind: "charge", idempotencyKey: key, note: "test" });

const alertsOf = (accountId: string) => db.select().from(alerts).where(eq(alerts.accountId, accountId));

describe("low balance", () => {
  it("50 concurrent debits crossing the threshold raise one alert; going back above re-arms it", async () => {
    const o = await org({ usd: 10, thresholdUsd: 5 });
    // The seed credit crossed upward from 0 (epoch 0 → 1). 50 × 0.2 USD: the balance crosses 5 USD once, in the middle of the burst.
    const r = await Promise.all(Array.from({ length: 50 }, (_, i) => debit(o.accountId, 200_000, `d1:${o.accountId}:${i}`)));
    expect(r.every((x) => x.ok)).toBe(true);
    let rows = await alertsOf(o.accountId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "low_balance", dedupeKey: `low_balance:${o.accountId}:1` });
    expect((rows[0].data as { balance_micro_usd: number }).balance_micro_usd).toBeLessThan(5e6);

    // Still below: more debits raise nothing.
    await debit(o.accountId, 1, `d2:${o.accountId}`);
    expect(await alertsOf(o.accountId)).toHaveLength(1);

    // A top-up above the threshold re-arms; the next crossing alerts again.
    await applyLedgerChange(db, { accountId: o.accountId, deltaMicroUsd: 20e6, kind: "admin_credit", idempotencyKey: `t:${o.accountId}`, note: "top-up" });
    const [a] = await db.select({ epoch: accounts.lowBalanceEpoch }).from(accounts).where(eq(accounts.id, o.accountId));
    expect(a.epoch).toBe(2);
    await Promise.all(Array.from({ length: 50 }, (_, i) => debit(o.accountId, 500_000, `d3:${o.accountId}:${i}`)));
    rows = await alertsOf(o.accountId);
    expect(rows.map((x) => x.dedupeKey).sort()).toEqual([`low_balance:${o.accountId}:1`, `low_balance:${o.accountId}:2`]);
  });

  it("no threshold, no alert", async () => {
    const o = await org({ usd: 1 });
    await debit(o.accountId, 900_000, `d:${o.accountId}`);
    expect(await alertsOf(o.accountId)).toHaveLength(0);
  });
});

describe("raiseAlert and delivery", () => {
  it("one row per dedupe key under 20 concurrent raises", async () => {
    const o = await org({ usd: 1 });
    const ids = await Promise.all(Array.from({ length: 20 }, () => raiseAlert(db, { accountId: o.accountId, kind: "budget_80", dedupeKey: `budget_80:${o.accountId}:w1`, data: { spent_micro_usd: 8e6, limit_micro_usd: 10e6 } })));
    expect(ids.filter(Boolean)).toHaveLength(1);
    expect(await alertsOf(o.accountId)).toHaveLength(1);
  });

  it("two instances dispatching: one email to each owner and billing member, none to members, one signed webhook", async () => {
    const o = await org({ usd: 1, webhook: true });
    const id = await raiseAlert(db, { accountId: o.accountId, kind: "budget_100", dedupeKey: `budget_100:${o.accountId}:w1`, data: { scope: "organisation", period: "month", window: "2026-11", spent_micro_usd: 10e6, limit_micro_usd: 10e6 } });
    await Promise.all([dispatchAlerts(db), dispatchAlerts(db), dispatchAlerts(db)]);
    await dispatchAlerts(db);
    const owner = await inbox.waitFor(o.owner);
    expect(owner.subject).toBe(`Budget reached: Org ${o.accountId.slice(-4)}`);
    expect(owner.text).toContain("The monthly organisation budget of");
    await inbox.waitFor(o.billing);
    await new Promise((r) => setTimeout(r, 300));
    expect(inbox.messages.filter((m) => m.to.includes(o.owner))).toHaveLength(1);
    expect(inbox.messages.filter((m) => m.to.includes(o.billing))).toHaveLength(1);
    expect(inbox.messages.filter((m) => m.to.includes(o.member))).toHaveLength(0);
    const [row] = await alertsOf(o.accountId);
    expect(row).toMatchObject({ emailState: "sent", webhookState: "queued" });

    const deliveries = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, o.accountId));
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ kind: "alert", id: `whd_${id}` });
    const policy = makePolicy({ publicBaseUrl: "https://gw.example.com", allowHosts: [receiver.hostPort] });
    const dispatcher = createGuardedAgent({ policy, baseConnect: loopbackOnlyConnector() });
    for (const d of await claimDueDeliveries(db, new Date(), 10, 30_000)) {
      if (d.accountId === o.accountId) await runDelivery(d, { db, policy, dispatcher, timeoutMs: 5000, scheduleS: [1] });
    }
    const [hook] = await receiver.waitFor(1);
    expect(hook.signatureOk).toBe(true);
    expect(hook.json).toMatchObject({ id, type: "alert.budget_100", organisation_id: o.accountId, data: { scope: "organisation", period: "month" } });
  });

  it("a deleted (disabled) organisation's alert is not posted", async () => {
    const o = await org({ usd: 1, webhook: true });
    await db.update(accounts).set({ disabled: true }).where(eq(accounts.id, o.accountId));
    await raiseAlert(db, { accountId: o.accountId, kind: "test", dedupeKey: `test:${o.accountId}` });
    await dispatchAlerts(db);
    const [row] = await alertsOf(o.accountId);
    expect(row.webhookState).toBe("none");
    expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, o.accountId))).toHaveLength(0);
  });

  it("email off for the organisation: no email, state none", async () => {
    const o = await org({ usd: 1 });
    await db.update(accounts).set({ alertEmail: false }).where(eq(accounts.id, o.accountId));
    await raiseAlert(db, { accountId: o.accountId, kind: "test", dedupeKey: `test:${o.accountId}` });
    await dispatchAlerts(db);
    const [row] = await alertsOf(o.accountId);
    expect(row).toMatchObject({ emailState: "none", webhookState: "none" });
  });
});
