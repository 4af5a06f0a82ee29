/**
 * Turning Stripe's word into ledger rows. Every function re-reads the object from the Stripe
 * API (events arrive in any order, any number of times) and writes in one transaction that
 * also records the event id when there is one. Credits are idempotent per Checkout Session
 * (`stripe:session:<id>`), so `completed` + `async_payment_succeeded` + the success page
 * together credit once.
 */
import { and, eq, like, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, autoTopups, ledgerEntries, stripeEvents } from "../../db/schema";
import { recordAudit } from "../audit/record";
import { logger } from "../logger";
import { raiseBillingAlert } from "./limit-alerts";
import { applyLedgerChange } from "./ledger";
import { MICRO_PER_CENT } from "./stripe";

export interface EventRef {
  id: string;
  type: string;
}

export type FulfillOutcome =
  | { status: "credited"; accountId: string; amountMicroUsd: number; balanceAfterMicroUsd: number }
  | { status: "already_credited"; accountId: string; amountMicroUsd: number }
  /** Paid after its organisation was deleted: refunded to the payer (refundAfterDeletion). */
  | { status: "refunded"; accountId: string; amountMicroUsd: number }
  | { status: "pending"; accountId: string }
  | { status: "duplicate_event" }
  | { status: "ignored"; reason: string; accountId?: string };

/** Inserts the event id; false when it was processed before (the caller then does nothing). */
async function claimEvent(tx: DbOrTx, event: EventRef | undefined): Promise<boolean> {
  if (!event) return true;
  const rows = await tx.insert(stripeEvents).values({ id: event.id, type: event.type }).onConflictDoNothing().returning({ id: stripeEvents.id });
  return rows.length > 0;
}

/** Records an event that needs no money movement (so a replay is answered as a duplicate). */
export async function recordEventOnly(db: DB, event: EventRef): Promise<boolean> {
  return claimEvent(db, event);
}

function accountOfSession(session: Stripe.Checkout.Session): string | null {
  const ref = session.client_reference_id;
  const meta = session.metadata?.accountId;
  // Both are set by createCheckoutSession; a session that lacks either, or where they disagree,
  // was not made by us and credits nobody.
  return ref && meta && ref === meta ? ref : null;
}

/**
 * Credits a Checkout Session's amount once. `expectAccountId` (the success page) refuses a
 * session that belongs to another account.
 */
export async function fulfillCheckoutSession(
  db: DB,
  stripe: Stripe,
  sessionId: string,
  opts: { event?: EventRef; expectAccountId?: string } = {},
): Promise<FulfillOutcome> {
  const session = await stripe.checkout.sessions.retrieve(sessionId);
  const accountId = accountOfSession(session);
  if (!accountId) return finishIgnored(db, opts.event, "session has no account of ours");
  if (opts.expectAccountId && opts.expectAccountId !== accountId) return { status: "ignored", reason: "session belongs to another account" };
  if (session.mode !== "payment") return finishIgnored(db, opts.event, "not a payment session", accountId);
  if ((session.currency ?? "").toLowerCase() !== "usd") return finishIgnored(db, opts.event, `currency ${session.currency}`, accountId);
  const cents = session.amount_total ?? 0;
  if (!Number.isSafeInteger(cents) || cents <= 0) return finishIgnored(db, opts.event, "no amount", accountId);
  if (session.payment_status !== "paid") {
    // Delayed methods: `completed` arrives unpaid; `async_payment_succeeded` brings the credit.
    if (opts.event) await claimEvent(db, opts.event);
    return { status: "pending", accountId };
  }
  const amount = cents * MICRO_PER_CENT;
  const [acct] = await db.select({ deletedAt: accounts.deletedAt }).from(accounts).where(eq(accounts.id, accountId));
  if (acct?.deletedAt) return refundAfterDeletion(db, stripe, session, accountId, opts.event);
  return db.transaction(async (tx) => {
    if (!(await claimEvent(tx, opts.event))) return { status: "duplicate_event" } as const;
    const r = await applyLedgerChange(tx, {
      accountId,
      deltaMicroUsd: amount,
      kind: "topup",
      idempotencyKey: `stripe:session:${session.id}`,
      note: `Stripe Checkout ${session.id}`,
    });
    if (!r.ok) return { status: "ignored", reason: r.reason, accountId } as const;
    if (!r.applied) return { status: "already_credited", accountId, amountMicroUsd: amount } as const;
    return { status: "credited", accountId, amountMicroUsd: amount, balanceAfterMicroUsd: r.balanceAfterMicroUsd } as const;
  });
}

/**
 * A Checkout paid after its organisation was deleted (its page was open, or the payment was
 * delayed): nobody can reach money credited there, so the payment goes back to the card. The
 * refund's Idempotency-Key is the session's, so a redelivered event refunds once. The books show
 * what happened, on the deleted organisation: the payment in and the refund out (the refund row
 * has the key recordChargeRefund uses, so Stripe's `charge.refunded` adds nothing). The operator
 * sees it in Admin → Audit and in the log (error level: it asks for a look at how it happened).
 */
async function refundAfterDeletion(db: DB, stripe: Stripe, session: Stripe.Checkout.Session, accountId: string, event?: EventRef): Promise<FulfillOutcome> {
  const pi = typeof session.payment_intent === "string" ? session.payment_intent : session.payment_intent?.id;
  if (!pi) return finishIgnored(db, event, "paid session without a PaymentIntent", accountId);
  const refund = await stripe.refunds.create(
    { payment_intent: pi, reason: "requested_by_customer", metadata: { accountId, checkoutSession: session.id, why: "organisation_deleted" } },
    { idempotencyKey: `refund-deleted-organisation:${session.id}` },
  );
  const charge = typeof refund.charge === "string" ? refund.charge : refund.charge?.id;
  const amount = refund.amount * MICRO_PER_CENT;
  let fresh = false;
  const out = await db.transaction(async (tx) => {
    if (!(await claimEvent(tx, event))) return { status: "duplicate_event" } as const;
    const paid = await applyLedgerChange(tx, { accountId, deltaMicroUsd: amount, kind: "topup", idempotencyKey: `stripe:session:${session.id}`, note: `Stripe Checkout ${session.id}, paid after the organisation was deleted` });
    if (!paid.ok || !paid.applied) return { status: "refunded", accountId, amountMicroUsd: amount } as const;
    fresh = true;
    // Refunded in full at once, so the charge's cumulative amount_refunded is this refund's amount.
    await applyLedgerChange(tx, { accountId, deltaMicroUsd: -amount, kind: "stripe_refund", idempotencyKey: `stripe:refund:${charge}:${refund.amount}`, note: `Refunded: ${session.id} was paid after the organisation was deleted`, floor: "any" });
    await recordAudit(tx, { actorUserId: null, actor: "stripe", action: "billing.refund_deleted_organisation", targetType: "account", targetId: accountId, accountId, details: { checkoutSession: session.id, refund: refund.id, amountMicroUsd: amount } });
    return { status: "refunded", accountId, amountMicroUsd: amount } as const;
  });
  if (fresh) logger().error({ accountId, checkoutSession: session.id, refund: refund.id, amountMicroUsd: amount }, "a Checkout was paid after its organisation was deleted; refunded");
  return out;
}

/**
 * Credits an auto top-up's PaymentIntent once (ledger key `stripe:pi:<id>`), from the worker's
 * synchronous answer or the `payment_intent.succeeded` webhook, whichever comes first; marks its
 * auto_topups row succeeded and raises the `auto_topup_succeeded` alert in the same transaction.
 * Only intents we made (metadata: accountId and autoTopupId) credit anybody.
 */
export async function fulfillPaymentIntent(db: DB, stripe: Stripe, ref: string | Stripe.PaymentIntent, opts: { event?: EventRef } = {}): Promise<FulfillOutcome> {
  // The webhook's copy may be stale or forged: re-read it; the worker's comes straight from Stripe.
  const intent = typeof ref === "string" ? await stripe.paymentIntents.retrieve(ref) : ref;
  const accountId = intent.metadata?.accountId;
  const topupId = intent.metadata?.autoTopupId;
  if (!accountId || !topupId) return finishIgnored(db, opts.event, "not an auto top-up of ours");
  if ((intent.currency ?? "").toLowerCase() !== "usd") return finishIgnored(db, opts.event, `currency ${intent.currency}`, accountId);
  if (intent.status !== "succeeded") return finishIgnored(db, opts.event, `payment ${intent.status}`, accountId);
  const cents = intent.amount_received ?? 0;
  if (!Number.isSafeInteger(cents) || cents <= 0) return finishIgnored(db, opts.event, "no amount", accountId);
  const amount = cents * MICRO_PER_CENT;
  return db.transaction(async (tx) => {
    if (!(await claimEvent(tx, opts.event))) return { status: "duplicate_event" } as const;
    const r = await applyLedgerChange(tx, { accountId, deltaMicroUsd: amount, kind: "topup", idempotencyKey: `stripe:pi:${intent.id}`, note: `Auto top-up ${intent.id}` });
    if (!r.ok) return { status: "ignored", reason: r.reason, accountId } as const;
    await tx
      .update(autoTopups)
      .set({ state: "succeeded", paymentIntentId: intent.id, errorCode: null, errorMessage: null, lockedUntil: null, updatedAt: new Date() })
      .where(and(eq(autoTopups.id, topupId), eq(autoTopups.accountId, accountId)));
    if (!r.applied) return { status: "already_credited", accountId, amountMicroUsd: amount } as const;
    await raiseBillingAlert(tx, accountId, "auto_topup_succeeded", `auto_topup_succeeded:${topupId}`, { auto_topup_id: topupId, amount_micro_usd: amount, balance_micro_usd: r.balanceAfterMicroUsd });
    return { status: "credited", accountId, amountMicroUsd: amount, balanceAfterMicroUsd: r.balanceAfterMicroUsd } as const;
  });
}

async function finishIgnored(db: DB, event: EventRef | undefined, reason: string, accountId?: string): Promise<FulfillOutcome> {
  if (event) await claimEvent(db, event);
  return { status: "ignored", reason, accountId };
}

async function accountOfPaymentIntent(stripe: Stripe, pi: string | Stripe.PaymentIntent | null): Promise<string | null> {
  if (!pi) return null;
  const intent = typeof pi === "string" ? await stripe.paymentIntents.retrieve(pi) : pi;
  return intent.metadata?.accountId ?? null;
}

export type AdjustOutcome =
  | { status: "debited" | "credited"; accountId: string; amountMicroUsd: number }
  | { status: "nothing_to_do" | "duplicate_event" }
  | { status: "ignored"; reason: string };

/**
 * A refund: the charge's cumulative `amount_refunded` (re-read from Stripe) minus what the
 * ledger already holds for that charge becomes one negative row. Partial refunds arriving out
 * of order never double count; the account row lock serialises concurrent deliveries.
 */
export async function recordChargeRefund(db: DB, stripe: Stripe, chargeId: string, event?: EventRef): Promise<AdjustOutcome> {
  const charge = await stripe.charges.retrieve(chargeId);
  const accountId = await accountOfPaymentIntent(stripe, charge.payment_intent);
  if (!accountId || (charge.currency ?? "").toLowerCase() !== "usd") {
    if (event) await claimEvent(db, event);
    return { status: "ignored", reason: accountId ? `currency ${charge.currency}` : "charge has no account of ours" };
  }
  const refunded = (charge.amount_refunded ?? 0) * MICRO_PER_CENT;
  const prefix = `stripe:refund:${charge.id}:`;
  return db.transaction(async (tx) => {
    if (!(await claimEvent(tx, event))) return { status: "duplicate_event" } as const;
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    const [row] = await tx
      .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.deltaMicroUsd}), 0)` })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.accountId, accountId), like(ledgerEntries.idempotencyKey, `${prefix}%`)));
    const already = -Number(row?.sum ?? 0);
    const delta = refunded - already;
    if (delta <= 0) return { status: "nothing_to_do" } as const;
    const r = await applyLedgerChange(tx, {
      accountId,
      deltaMicroUsd: -delta,
      kind: "stripe_refund",
      idempotencyKey: `${prefix}${charge.amount_refunded}`,
      note: `Stripe refund on ${charge.id}`,
      floor: "any",
    });
    return r.ok && r.applied ? ({ status: "debited", accountId, amountMicroUsd: delta } as const) : ({ status: "nothing_to_do" } as const);
  });
}

/** A dispute opened: the disputed amount leaves the balance (which may go below zero). A dispute
 * closed as won puts it back. */
export async function recordDispute(db: DB, stripe: Stripe, dispute: Stripe.Dispute, event?: EventRef): Promise<AdjustOutcome> {
  const accountId = await accountOfPaymentIntent(stripe, dispute.payment_intent);
  if (!accountId || (dispute.currency ?? "").toLowerCase() !== "usd") {
    if (event) await claimEvent(db, event);
    return { status: "ignored", reason: "dispute has no account of ours" };
  }
  const won = event?.type === "charge.dispute.closed";
  if (won && dispute.status !== "won") {
    if (event) await claimEvent(db, event);
    return { status: "nothing_to_do" };
  }
  const amount = dispute.amount * MICRO_PER_CENT;
  return db.transaction(async (tx) => {
    if (!(await claimEvent(tx, event))) return { status: "duplicate_event" } as const;
    const r = await applyLedgerChange(tx, {
      accountId,
      deltaMicroUsd: won ? amount : -amount,
      kind: "stripe_dispute",
      idempotencyKey: `stripe:dispute:${dispute.id}:${won ? "won" : "opened"}`,
      note: won ? `Stripe dispute ${dispute.id} won` : `Stripe dispute ${dispute.id} opened`,
      floor: "any",
    });
    if (!r.ok || !r.applied) return { status: "nothing_to_do" } as const;
    return { status: won ? "credited" : "debited", accountId, amountMicroUsd: amount } as const;
  });
}
