/**
 * An organisation's alert settings (decision 0029): the low-balance threshold, email on/off,
 * and the alert webhook URL, checked with the task webhooks' SSRF rules when saved; its signing
 * secret is made here and shown once, in the answer that set the URL.
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { accounts } from "../../db/schema";
import { AppError } from "../app-error";
import { encryptSecret } from "../crypto";
import { emailAvailable } from "../email";
import { randomBase62 } from "../ids";
import { countEmailSend } from "../auth/rate-limit";
import { alertRecipients } from "../tasks/alert-delivery";
import { checkOperatorWebhookUrl } from "../tasks/operator-events";
import { raiseAlert, recentAlerts } from "./raise";

export const alertSettingsSchema = z
  .object({
    /** null = no low-balance alert. */
    lowBalanceThresholdMicroUsd: z.number().int().min(0).max(1e15).nullable().optional(),
    email: z.boolean().optional(),
    /** null = remove the webhook. */
    webhookUrl: z.string().max(2048).nullable().optional(),
  })
  .strict();

export interface AlertSettingsView {
  lowBalanceThresholdMicroUsd: number | null;
  email: boolean;
  emailAvailable: boolean;
  webhookUrl: string | null;
  recent: { id: string; kind: string; data: Record<string, unknown>; emailState: string; webhookState: string; createdAt: string }[];
}

export async function getAlertSettings(db: DB, accountId: string): Promise<AlertSettingsView> {
  const [a] = await db
    .select({ t: accounts.lowBalanceThresholdMicroUsd, email: accounts.alertEmail, url: accounts.alertWebhookUrl })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!a) throw new AppError("not_found", "No such organisation.");
  const recent = await recentAlerts(db, accountId, 20);
  return {
    lowBalanceThresholdMicroUsd: a.t,
    email: a.email,
    emailAvailable: emailAvailable(),
    webhookUrl: a.url,
    recent: recent.map((r) => ({ id: r.id, kind: r.kind, data: r.data, emailState: r.emailState, webhookState: r.webhookState, createdAt: r.createdAt.toISOString() })),
  };
}

/** Saves what was given; a new webhook URL gets a new secret, returned once as `webhookSecret`. */
export async function setAlertSettings(db: DB, accountId: string, input: z.infer<typeof alertSettingsSchema>): Promise<AlertSettingsView & { webhookSecret?: string }> {
  const set: Partial<typeof accounts.$inferInsert> = {};
  let secret: string | undefined;
  if (input.lowBalanceThresholdMicroUsd !== undefined) set.lowBalanceThresholdMicroUsd = input.lowBalanceThresholdMicroUsd;
  if (input.email !== undefined) set.alertEmail = input.email;
  if (input.webhookUrl === null || input.webhookUrl === "") {
    set.alertWebhookUrl = null;
    set.alertWebhookSecretEncrypted = null;
  } else if (input.webhookUrl !== undefined) {
    const v = await checkOperatorWebhookUrl(input.webhookUrl);
    if (!v.ok) throw new AppError("invalid_request", `webhookUrl: ${v.error}`, { field: "webhookUrl" });
    secret = `whsec_${randomBase62(32)}`;
    set.alertWebhookUrl = v.value.url.toString();
    set.alertWebhookSecretEncrypted = encryptSecret(secret);
  }
  if (!Object.keys(set).length) throw new AppError("invalid_request", "Nothing to change.");
  await db.update(accounts).set(set).where(eq(accounts.id, accountId));
  return { ...(await getAlertSettings(db, accountId)), ...(secret ? { webhookSecret: secret } : {}) };
}

/** Raises a `test` alert (delivered like a real one: email and webhook). */
/** Counted against the sender's and each recipient's email limits first (lib/auth/rate-limit.ts). */
export async function sendTestAlert(db: DB, accountId: string, byUserId: string): Promise<{ id: string }> {
  const [org] = await db.select({ email: accounts.alertEmail }).from(accounts).where(eq(accounts.id, accountId));
  await countEmailSend(byUserId, org?.email && emailAvailable() ? await alertRecipients(db, accountId) : []);
  const id = await raiseAlert(db, { accountId, kind: "test", dedupeKey: `test:${accountId}:${Date.now()}:${randomBase62(8)}`, data: { requested_by: byUserId } });
  return { id: id! };
}
