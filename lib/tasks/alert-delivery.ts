/**
 * Delivers raised alerts (lib/alerts, decision 0029), called from the worker loop on every instance:
 * - webhook: alerts still `pending` are claimed (FOR UPDATE SKIP LOCKED) and turned, in the same
 *   transaction, into a webhook_deliveries row of kind "alert" (signed, SSRF-guarded, retried by
 *   the webhook worker like a task's); the delivery id is derived from the alert, so it exists once.
 * - email: an alert is claimed with a lease (`sending` until email_locked_until) before anything
 *   is sent and marked `sent` after, so two instances never both send it; a crash between the
 *   send and the mark re-sends once the lease runs out (at least once, never concurrently twice).
 */
import { and, eq, inArray, lt, or } from "drizzle-orm";
import type { DB } from "../../db/client";
import { accounts, alerts, apiKeys, memberships, users, webhookDeliveries } from "../../db/schema";
import { formatUsd } from "../billing/money";
import { emailDelivery, renderEmail, sendEmail, type EmailMessage } from "../email";
import { env } from "../env";
import { logger } from "../logger";

type AlertRow = typeof alerts.$inferSelect;

const EMAIL_LEASE_MS = 60_000;

/** The JSON body of an alert's webhook (docs/webhooks.md). */
export function alertWebhookBody(a: Pick<AlertRow, "id" | "accountId" | "kind" | "data" | "createdAt">): string {
  return JSON.stringify({ id: a.id, type: `alert.${a.kind}`, organisation_id: a.accountId, created_at: a.createdAt.toISOString(), data: a.data });
}

/** Queues the webhook of up to `limit` pending alerts; returns how many were queued. */
export async function queueAlertWebhooks(db: DB, limit = 20): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ a: alerts, webhookUrl: accounts.alertWebhookUrl, disabled: accounts.disabled, secret: accounts.alertWebhookSecretEncrypted })
      .from(alerts)
      .innerJoin(accounts, eq(accounts.id, alerts.accountId))
      .where(eq(alerts.webhookState, "pending"))
      .orderBy(alerts.createdAt)
      .limit(limit)
      .for("update", { of: alerts, skipLocked: true });
    let queued = 0;
    for (const { a, webhookUrl, disabled, secret } of due) {
      // A deleted (disabled) organisation's alerts go nowhere.
      const url = disabled ? null : webhookUrl;
      if (url) {
        await tx
          .insert(webhookDeliveries)
          .values({ id: `whd_${a.id}`, kind: "alert", taskId: a.id, accountId: a.accountId, url, body: alertWebhookBody(a), eventStatus: a.kind, secretEncrypted: secret, state: "pending", nextAttemptAt: new Date() })
          .onConflictDoNothing();
        queued++;
      }
      await tx.update(alerts).set({ webhookState: url ? "queued" : "none" }).where(eq(alerts.id, a.id));
    }
    return queued;
  });
}

/** Owners and billing members of the organisation: who gets alert emails. */
export async function alertRecipients(db: DB, accountId: string): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.accountId, accountId), inArray(memberships.role, ["owner", "billing"]), eq(users.disabled, false)));
  return rows.map((r) => r.email).sort();
}

const PERIOD_WORD: Record<string, string> = { day: "daily", week: "weekly", month: "monthly" };

/** "The monthly budget of ana@example.com", "The daily budget of key ci-bot", "The weekly organisation budget". */
function budgetName(d: Record<string, number | string | undefined>): string {
  const period = PERIOD_WORD[String(d.period)] ?? "";
  if (d.scope === "organisation" || !d.target) return `The ${period} organisation budget`;
  return `The ${period} budget of ${d.scope === "key" ? `key ${d.target}` : d.target}`;
}

/** The member's email or the key's name an alert is about (added to the email's data, not stored). */
async function alertTarget(db: DB, data: Record<string, unknown>): Promise<string | undefined> {
  if (typeof data.key_id === "string") return (await db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.id, data.key_id)))[0]?.name || data.key_id;
  if (typeof data.user_id === "string") return (await db.select({ email: users.email }).from(users).where(eq(users.id, data.user_id)))[0]?.email;
  return undefined;
}

export function alertEmail(to: string, orgName: string, a: Pick<AlertRow, "kind" | "data">): EmailMessage {
  const d = a.data as Record<string, number | string | undefined>;
  const usd = (k: string) => (typeof d[k] === "number" ? `$${formatUsd(d[k] as number)}` : "?");
  const lines: Record<string, [string, string]> = {
    low_balance: [`Low balance: ${orgName}`, `The balance of ${orgName} is ${usd("balance_micro_usd")}, below your alert threshold of ${usd("threshold_micro_usd")}.`],
    budget_soft: [`Budget soft limit reached: ${orgName}`, `${budgetName(d)} of ${orgName} passed its soft limit (${usd("spent_micro_usd")} of ${usd("limit_micro_usd")}) in ${d.window}.`],
    budget_80: [`Budget 80 % used: ${orgName}`, `${budgetName(d)} of ${orgName} has used 80 % (${usd("spent_micro_usd")} of ${usd("limit_micro_usd")}) in ${d.window}.`],
    budget_100: [
      `Budget reached: ${orgName}`,
      `${budgetName(d)} of ${orgName} is reached for ${d.window} (${usd("spent_micro_usd")} spent of ${usd("limit_micro_usd")}); requests it covers are refused until it starts again or an owner raises it.`,
    ],
    member_cap: [
      `Monthly cap reached: ${d.target ?? "a member"} in ${orgName}`,
      `${d.target ?? "A member"} reached their monthly cap of ${usd("limit_micro_usd")} in ${orgName}; their requests are refused until next month or until an owner or admin raises the cap on the Organisation page.`,
    ],
    auto_topup_succeeded: [`Auto top-up: ${usd("amount_micro_usd")} added to ${orgName}`, `Your saved card was charged ${usd("amount_micro_usd")} and the balance of ${orgName} was topped up.`],
    auto_topup_failed: [`Auto top-up failed: ${orgName}`, `Charging your saved card for ${orgName} failed (${d.reason ?? "unknown reason"}). Update the card or top up on the Billing page.`],
    auto_topup_card_removed: [
      `Auto top-up card removed: ${orgName}`,
      `The card saved for auto top-up of ${orgName} was removed because the member who saved it left the organisation; auto top-up is off until someone saves a card on the Billing page.`,
    ],
    test: [`Test alert: ${orgName}`, `This is a test alert for ${orgName}. Alerts reach you like this.`],
  };
  const [subject, body] = lines[a.kind] ?? [`Alert: ${orgName}`, `An alert (${a.kind}) was raised for ${orgName}.`];
  return renderEmail(to, `alert_${a.kind}`, {
    subject,
    paragraphs: [body],
    action: { label: "Open Billing", url: `${env().publicBaseUrl}/billing` },
    footer: "You get this because you are an owner or billing member of this organisation; alert settings are on the Billing page.",
  });
}

/** Claims and emails up to `limit` alerts; returns how many were sent. */
export async function sendAlertEmails(db: DB, limit = 10, now = new Date()): Promise<number> {
  const due = db
    .select({ id: alerts.id })
    .from(alerts)
    .where(or(eq(alerts.emailState, "pending"), and(eq(alerts.emailState, "sending"), lt(alerts.emailLockedUntil, now))))
    .orderBy(alerts.createdAt)
    .limit(limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(alerts)
    .set({ emailState: "sending", emailLockedUntil: new Date(now.getTime() + EMAIL_LEASE_MS) })
    .where(inArray(alerts.id, due))
    .returning();
  let sent = 0;
  for (const a of claimed) {
    const [org] = await db.select({ name: accounts.name, on: accounts.alertEmail }).from(accounts).where(eq(accounts.id, a.accountId));
    let state: AlertRow["emailState"] = "sent";
    try {
      if (!org?.on) state = "none";
      else if (emailDelivery() === "off") state = "off";
      else {
        const target = await alertTarget(db, a.data);
        const named = target ? { ...a, data: { ...a.data, target } } : a;
        for (const to of await alertRecipients(db, a.accountId)) await sendEmail(alertEmail(to, org.name, named));
        sent++;
      }
    } catch (err) {
      // The lease runs out and another pass retries it.
      logger().warn({ err, alertId: a.id }, "alert email failed; retried later");
      continue;
    }
    await db.update(alerts).set({ emailState: state, emailLockedUntil: null }).where(and(eq(alerts.id, a.id), eq(alerts.emailState, "sending")));
  }
  return sent;
}

/** One pass of both; returns how many alerts it handled (the worker looks again at once if > 0). */
export async function dispatchAlerts(db: DB): Promise<number> {
  const q = await queueAlertWebhooks(db);
  const e = await sendAlertEmails(db);
  return q + e;
}

