/** Billing page server side: whether Stripe is on, starting Checkout, and the success page's check. */
import { z } from "zod";
import type { DB } from "../../db/client";
import {
  checkTopupCents,
  createCheckoutSession,
  stripePayments,
  TOPUP_MAX_CENTS,
  TOPUP_MIN_CENTS,
  TOPUP_PRESETS_CENTS,
} from "../billing/stripe";
import { fulfillCheckoutSession } from "../billing/stripe-fulfill";
import { AppError } from "./errors";
import { accountBalance } from "./overview";
import type { BillingConfigView, CheckoutStatusView } from "../views";

export function billingConfig(): BillingConfigView {
  return {
    stripeEnabled: stripePayments() !== null,
    minCents: TOPUP_MIN_CENTS,
    maxCents: TOPUP_MAX_CENTS,
    presetsCents: TOPUP_PRESETS_CENTS,
  };
}

export const checkoutSchema = z.object({ amountCents: z.number().int("Whole cents only.") });

export async function startCheckout(db: DB, user: { id: string; accountId: string; email: string }, amountCents: number) {
  const stripe = stripePayments();
  if (!stripe) throw new AppError("payments_disabled", "Card top-ups are not enabled on this gateway. Ask an admin for credit.");
  const ok = checkTopupCents(amountCents);
  if (!ok.ok) throw new AppError("invalid_request", ok.error, { field: "amount" });
  try {
    return await createCheckoutSession(db, stripe, { accountId: user.accountId, userId: user.id, email: user.email, amountCents });
  } catch (err) {
    throw new AppError("upstream_error", "Stripe did not accept the request. Try again in a moment.", { cause: err });
  }
}

/**
 * The success page asks here. It also fulfils (Stripe's guide: the redirect may come before
 * the webhook), idempotently and only for the caller's own session.
 */
export async function checkoutStatus(db: DB, user: { accountId: string }, sessionId: string): Promise<CheckoutStatusView> {
  const stripe = stripePayments();
  if (!stripe) throw new AppError("payments_disabled", "Card top-ups are not enabled on this gateway.");
  if (!/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId)) throw new AppError("not_found", "No such checkout session.");
  let outcome;
  try {
    outcome = await fulfillCheckoutSession(db, stripe, sessionId, { expectAccountId: user.accountId });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) throw new AppError("not_found", "No such checkout session.");
    throw new AppError("upstream_error", "Could not reach Stripe to confirm the payment. The balance updates as soon as Stripe tells us.", { cause: err });
  }
  if (outcome.status === "ignored" && outcome.accountId !== user.accountId) throw new AppError("not_found", "No such checkout session.");
  const state = outcome.status === "credited" || outcome.status === "already_credited" ? "paid" : outcome.status === "pending" ? "pending" : "failed";
  return { state, amountMicroUsd: "amountMicroUsd" in outcome ? outcome.amountMicroUsd : null, ...(await accountBalance(db, user.accountId)) };
}
