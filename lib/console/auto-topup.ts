/** Billing → Auto top-up: the console's use cases over lib/billing/auto-topup.ts (owners, admins, billing). */
import type { DB } from "../../db/client";
import { autoTopupSchema, autoTopupView, removeCard, saveCardFromSession, setAutoTopup, startCardSetup } from "../billing/auto-topup";
import { stripePayments } from "../billing/stripe";
import { AppError } from "./errors";

export { autoTopupSchema };

type Who = { id: string; accountId: string; email: string };

export const getAutoTopup = (db: DB, who: Who) => autoTopupView(db, who.accountId, !!stripePayments());

export async function putAutoTopup(db: DB, who: Who, body: Parameters<typeof setAutoTopup>[2]) {
  await setAutoTopup(db, who.accountId, body);
  return getAutoTopup(db, who);
}

/** A Checkout Session in setup mode; the browser goes to its URL and comes back to /billing?card_session=…. */
export async function saveCardStart(db: DB, who: Who) {
  const stripe = stripePayments();
  if (!stripe) throw new AppError("payments_disabled", "Card payments are not enabled on this gateway.");
  try {
    return await startCardSetup(db, stripe, { accountId: who.accountId, userId: who.id, email: who.email });
  } catch (err) {
    throw new AppError("upstream_error", "Stripe did not accept the request. Try again in a moment.", { cause: err });
  }
}

/** The Billing page's return from Checkout: saves the card at once (the webhook does too). */
export async function saveCardReturn(db: DB, who: Who, sessionId: string) {
  const stripe = stripePayments();
  if (!stripe) throw new AppError("payments_disabled", "Card payments are not enabled on this gateway.");
  if (!/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId)) throw new AppError("not_found", "No such checkout session.", { field: "sessionId" });
  let r;
  try {
    r = await saveCardFromSession(db, stripe, sessionId, who.accountId);
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) throw new AppError("not_found", "No such checkout session.", { field: "sessionId" });
    throw new AppError("upstream_error", "Could not reach Stripe to confirm the card. Try again in a moment.", { cause: err });
  }
  if (r.status !== "saved") throw new AppError("not_found", "No card was saved in that session.", { field: "sessionId" });
  return getAutoTopup(db, who);
}

export async function forgetCard(db: DB, who: Who) {
  await removeCard(db, stripePayments(), who.accountId);
  return getAutoTopup(db, who);
}
