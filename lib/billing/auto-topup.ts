/**
 * Auto top-up (decision 0029): a card saved through Stripe Checkout in setup mode, and "when the
 * balance falls below X, add Y". The accounts trigger of migration 0014 inserts one `auto_topups`
 * row per crossing; `chargeDueAutoTopups` (the worker, every instance) claims each row with a lease
 * and charges it off-session with the row id as Stripe's Idempotency-Key, so a crash or a second
 * instance replays the same PaymentIntent instead of charging twice. The credit goes through
 * `fulfillPaymentIntent` — the same function the `payment_intent.succeeded` webhook calls — whose
 * ledger key `stripe:pi:<id>` credits once whichever comes first.
 */
import { and, desc, eq, inArray, isNotNull, lt, or, sql } from "drizzle-orm";
import Stripe from "stripe";
import { z } from "zod";
import type { DB, DbOrTx } from "../../db/client";
import { accounts, autoTopups, checkoutSessions, memberships } from "../../db/schema";
import { AppError } from "../app-error";
import { env } from "../env";
import { newId } from "../ids";
import { logger } from "../logger";
import { raiseBillingAlert } from "./limit-alerts";
import { parseUsd } from "./money";
import { MICRO_PER_CENT, TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "./stripe";
import { fulfillPaymentIntent } from "./stripe-fulfill";
import type { AutoTopupView } from "../views";
export type { AutoTopupView };

const CHARGE_LEASE_MS = 60_000;

export async function autoTopupView(db: DbOrTx, accountId: string, stripeOn: boolean): Promise<AutoTopupView> {
  const [a] = await db
    .select({ card: accounts.autoTopupCard, pm: accounts.autoTopupPaymentMethod, t: accounts.autoTopupThresholdMicroUsd, amt: accounts.autoTopupAmountMicroUsd })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  const recent = await db.select().from(autoTopups).where(eq(autoTopups.accountId, accountId)).orderBy(desc(autoTopups.createdAt)).limit(5);
  return {
    available: stripeOn,
    card: a?.pm ? (a.card ?? "Saved card") : null,
    enabled: !!(a?.pm && a.t !== null && a.amt !== null),
    thresholdMicroUsd: a?.t ?? null,
    amountMicroUsd: a?.amt ?? null,
    recent: recent.map((r) => ({ id: r.id, state: r.state, amountMicroUsd: r.amountMicroUsd, errorCode: r.errorCode, errorMessage: r.errorMessage, createdAt: r.createdAt.toISOString() })),
  };
}

const dollars = (what: string) => z.string().trim().refine((s) => parseUsd(s) !== null, `Enter ${what} in dollars, such as 10 or 2.50.`);

export const autoTopupSchema = z.union([
  z.object({ enabled: z.literal(false) }),
  z
    .object({ enabled: z.literal(true), thresholdUsd: dollars("the threshold"), amountUsd: dollars("the amount") })
    .transform((v) => ({ enabled: true as const, threshold: parseUsd(v.thresholdUsd)!, amount: parseUsd(v.amountUsd)! }))
    .refine((v) => v.amount % MICRO_PER_CENT === 0 && v.amount >= TOPUP_MIN_CENTS * MICRO_PER_CENT && v.amount <= TOPUP_MAX_CENTS * MICRO_PER_CENT, {
      message: `Add between $${TOPUP_MIN_CENTS / 100} and $${(TOPUP_MAX_CENTS / 100).toLocaleString("en-US")}, in whole cents.`,
      path: ["amountUsd"],
    }),
]);

/**
 * Turns auto top-up on (threshold and amount) or off. Turned on with the balance already below
 * the threshold, it charges at once (that is this epoch's crossing).
 */
export async function setAutoTopup(db: DB, accountId: string, input: z.infer<typeof autoTopupSchema>) {
  await db.transaction(async (tx) => {
    const [a] = await tx.select({ pm: accounts.autoTopupPaymentMethod }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    if (!input.enabled) {
      await tx.update(accounts).set({ autoTopupThresholdMicroUsd: null, autoTopupAmountMicroUsd: null }).where(eq(accounts.id, accountId));
      await cancelPending(tx, accountId, "turned_off", "Auto top-up was turned off before the charge.");
      return;
    }
    if (!a?.pm) throw new AppError("conflict", "Save a card first.");
    const [u] = await tx
      .update(accounts)
      .set({ autoTopupThresholdMicroUsd: input.threshold, autoTopupAmountMicroUsd: input.amount })
      .where(eq(accounts.id, accountId))
      .returning({ balance: accounts.balanceMicroUsd, epoch: accounts.autoTopupEpoch });
    if (u && u.balance < input.threshold) {
      await tx.insert(autoTopups).values({ id: newId("autoTopup"), accountId, epoch: u.epoch, amountMicroUsd: input.amount }).onConflictDoNothing();
    }
  });
}

/** A Checkout Session in setup mode that saves a card for off-session charges; its URL. */
export async function startCardSetup(db: DB, stripe: Stripe, who: { accountId: string; userId: string; email: string }): Promise<{ url: string }> {
  const [a] = await db.select({ customer: accounts.stripeCustomerId }).from(accounts).where(eq(accounts.id, who.accountId));
  let customer = a?.customer ?? null;
  if (!customer) {
    const c = await stripe.customers.create({ email: who.email, metadata: { accountId: who.accountId } }, { idempotencyKey: `customer:${who.accountId}` });
    customer = c.id;
    await db.update(accounts).set({ stripeCustomerId: customer }).where(and(eq(accounts.id, who.accountId), sql`${accounts.stripeCustomerId} is null`));
    // Another tab may have won the race: use whichever was stored.
    customer = (await db.select({ c: accounts.stripeCustomerId }).from(accounts).where(eq(accounts.id, who.accountId)))[0]!.c!;
  }
  const base = env().publicBaseUrl;
  const session = await stripe.checkout.sessions.create({
    mode: "setup",
    currency: "usd",
    customer,
    client_reference_id: who.accountId,
    metadata: { accountId: who.accountId, userId: who.userId, purpose: "auto_topup_card" },
    success_url: `${base}/billing?card_session={CHECKOUT_SESSION_ID}`,
    cancel_url: `${base}/billing`,
  });
  if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
  await db.insert(checkoutSessions).values({ id: session.id, accountId: who.accountId, mode: "setup" }).onConflictDoNothing();
  return { url: session.url };
}

export type CardOutcome = { status: "saved"; accountId: string; card: string } | { status: "ignored"; reason: string };

/**
 * Saves the card of a completed setup-mode session on its organisation (from the Billing page's
 * return and from `checkout.session.completed`; both may run, the result is the same).
 */
export async function saveCardFromSession(db: DbOrTx, stripe: Stripe, sessionId: string, expectAccountId?: string): Promise<CardOutcome> {
  const session = await stripe.checkout.sessions.retrieve(sessionId);
  const accountId = session.client_reference_id;
  if (session.mode !== "setup" || session.metadata?.purpose !== "auto_topup_card" || !accountId || session.metadata?.accountId !== accountId) return { status: "ignored", reason: "not a card-saving session of ours" };
  if (expectAccountId && expectAccountId !== accountId) return { status: "ignored", reason: "session belongs to another organisation" };
  const siRef = session.setup_intent;
  if (!siRef) return { status: "ignored", reason: "no card saved yet" };
  const si = typeof siRef === "string" ? await stripe.setupIntents.retrieve(siRef) : siRef;
  const pmRef = si.payment_method;
  if (si.status !== "succeeded" || !pmRef) return { status: "ignored", reason: `setup ${si.status}` };
  const pm = typeof pmRef === "string" ? await stripe.paymentMethods.retrieve(pmRef) : pmRef;
  const card = pm.card ? `${pm.card.brand.charAt(0).toUpperCase()}${pm.card.brand.slice(1)} •••• ${pm.card.last4}` : "Saved card";
  const customer = typeof session.customer === "string" ? session.customer : (session.customer?.id ?? null);
  // Saved by whom: a card is charged only while its saver is still a member (chargeOne).
  const savedBy = session.metadata?.userId ?? null;
  const saved = await db
    .update(accounts)
    .set({ autoTopupPaymentMethod: pm.id, autoTopupCard: card, autoTopupCardSavedBy: savedBy, ...(customer ? { stripeCustomerId: customer } : {}) })
    .where(and(eq(accounts.id, accountId), eq(accounts.disabled, false), savedBy ? sql`exists (select 1 from ${memberships} where ${memberships.accountId} = ${accountId} and ${memberships.userId} = ${savedBy})` : undefined))
    .returning({ id: accounts.id });
  if (!saved.length) {
    // The organisation was deleted or its saver left while Stripe's page was open: nobody may charge it.
    await detachCard(stripe, pm.id, accountId);
    return { status: "ignored", reason: "the organisation or the member who saved the card is gone" };
  }
  return { status: "saved", accountId, card };
}

/** Forgets the saved card (and detaches it at Stripe when we can); auto top-up stops. */
export async function removeCard(db: DB, stripe: Stripe | null, accountId: string) {
  const pm = await db.transaction((tx) => forgetCard(tx, accountId, { code: "no_card", message: "The card was removed before the charge." }));
  if (pm) await detachCard(stripe, pm, accountId);
}

/**
 * A member leaves or is removed (in the caller's transaction): a card they saved is forgotten,
 * pending top-ups on it are cancelled and the owners are alerted. Returns the PaymentMethod to
 * detach at Stripe once the transaction has committed (detachCard), or null.
 */
export async function forgetCardOfLeaver(tx: DbOrTx, accountId: string, userId: string): Promise<string | null> {
  const pm = await forgetCard(tx, accountId, { code: "card_owner_left", message: "The member who saved the card left the organisation." }, userId);
  if (pm) await raiseBillingAlert(tx, accountId, "auto_topup_card_removed", `auto_topup_card_removed:${accountId}:${pm}`, { user_id: userId, reason: "the member who saved it left the organisation" });
  return pm;
}

/** Clears the card (only `savedBy`'s, when given) and auto top-up; the PaymentMethod it was, or null. */
async function forgetCard(tx: DbOrTx, accountId: string, why: { code: string; message: string }, savedBy?: string): Promise<string | null> {
  const [a] = await tx
    .select({ pm: accounts.autoTopupPaymentMethod })
    .from(accounts)
    .where(and(eq(accounts.id, accountId), savedBy ? eq(accounts.autoTopupCardSavedBy, savedBy) : undefined))
    .for("update");
  if (!a?.pm) return null;
  await tx
    .update(accounts)
    .set({ autoTopupPaymentMethod: null, autoTopupCard: null, autoTopupCardSavedBy: null, autoTopupThresholdMicroUsd: null, autoTopupAmountMicroUsd: null })
    .where(eq(accounts.id, accountId));
  await cancelPending(tx, accountId, why.code, why.message);
  return a.pm;
}

/** Detaches a forgotten card at Stripe (best effort: it is already forgotten here). */
export async function detachCard(stripe: Stripe | null, pm: string, accountId: string): Promise<void> {
  if (stripe) await stripe.paymentMethods.detach(pm).catch((err) => logger().warn({ err: (err as Error).message, accountId }, "could not detach the card at Stripe"));
}

/** Pending top-ups that will not be charged (one already charging finishes: Stripe has it). */
async function cancelPending(tx: DbOrTx, accountId: string, code: string, message: string) {
  await tx
    .update(autoTopups)
    .set({ state: "failed", errorCode: code, errorMessage: message, updatedAt: new Date() })
    .where(and(eq(autoTopups.accountId, accountId), eq(autoTopups.state, "pending")));
}

/**
 * Charges up to `limit` due auto top-ups (pending, or charging with a lapsed lease after a crash);
 * returns how many it finished. Stripe's answer decides: succeeded → credited (and the webhook's
 * later credit is a no-op); a card error → failed or requires_action, with an alert; anything else
 * (network, Stripe 5xx) → left charging, retried when the lease lapses with the same
 * Idempotency-Key, so Stripe answers the first attempt's PaymentIntent instead of charging again.
 */
export async function chargeDueAutoTopups(db: DB, stripe: Stripe, limit = 5, now = new Date()): Promise<number> {
  const due = db
    .select({ id: autoTopups.id })
    .from(autoTopups)
    .where(or(eq(autoTopups.state, "pending"), and(eq(autoTopups.state, "charging"), lt(autoTopups.lockedUntil, now))))
    .orderBy(autoTopups.createdAt)
    .limit(limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(autoTopups)
    .set({ state: "charging", lockedUntil: new Date(now.getTime() + CHARGE_LEASE_MS), updatedAt: now })
    .where(inArray(autoTopups.id, due))
    .returning();
  let done = 0;
  for (const t of claimed) if (await chargeOne(db, stripe, t)) done++;
  return done;
}

async function chargeOne(db: DB, stripe: Stripe, t: typeof autoTopups.$inferSelect): Promise<boolean> {
  const [a] = await db
    .select({
      pm: accounts.autoTopupPaymentMethod,
      customer: accounts.stripeCustomerId,
      name: accounts.name,
      // Checked at charge time too: a card whose saver has left (or whose organisation is deleted) is never charged.
      saverGone: sql<boolean>`${accounts.disabled} or (${accounts.autoTopupCardSavedBy} is not null and not exists (select 1 from ${memberships} where ${memberships.accountId} = ${accounts.id} and ${memberships.userId} = ${accounts.autoTopupCardSavedBy}))`,
    })
    .from(accounts)
    .where(and(eq(accounts.id, t.accountId), isNotNull(accounts.autoTopupPaymentMethod)));
  if (!a?.pm || !a.customer) return finish(db, t, "failed", { code: "no_card", message: "No card is saved any more." });
  if (a.saverGone) {
    const why = { code: "card_owner_left", message: "The member who saved the card is no longer in the organisation." };
    const pm = await db.transaction((tx) => forgetCard(tx, t.accountId, why));
    if (pm) await detachCard(stripe, pm, t.accountId);
    return finish(db, t, "failed", why);
  }
  let intent: Stripe.PaymentIntent;
  try {
    intent = await stripe.paymentIntents.create(
      {
        amount: t.amountMicroUsd / MICRO_PER_CENT,
        currency: "usd",
        customer: a.customer,
        payment_method: a.pm,
        off_session: true,
        confirm: true,
        description: `Auto top-up of ${a.name}`,
        metadata: { accountId: t.accountId, autoTopupId: t.id },
      },
      { idempotencyKey: `auto-topup:${t.id}` },
    );
  } catch (err) {
    if (err instanceof Stripe.errors.StripeCardError) {
      const code = err.code ?? "card_declined";
      return finish(db, t, code === "authentication_required" ? "requires_action" : "failed", { code, message: err.message, paymentIntentId: (err.raw as { payment_intent?: { id?: string } }).payment_intent?.id });
    }
    logger().warn({ err: (err as Error).message, autoTopupId: t.id }, "auto top-up charge did not get an answer; retried when its lease lapses");
    return false;
  }
  if (intent.status !== "succeeded") return finish(db, t, intent.status === "requires_action" ? "requires_action" : "failed", { code: intent.status, message: `Stripe left the payment ${intent.status}.`, paymentIntentId: intent.id });
  const r = await fulfillPaymentIntent(db, stripe, intent);
  return r.status === "credited" || r.status === "already_credited";
}

async function finish(db: DB, t: typeof autoTopups.$inferSelect, state: "failed" | "requires_action", e: { code: string; message: string; paymentIntentId?: string }): Promise<boolean> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(autoTopups)
      .set({ state, errorCode: e.code, errorMessage: e.message, paymentIntentId: e.paymentIntentId ?? null, lockedUntil: null, updatedAt: new Date() })
      .where(and(eq(autoTopups.id, t.id), eq(autoTopups.state, "charging")))
      .returning({ id: autoTopups.id });
    if (!row) return;
    const reason = state === "requires_action" ? "your bank asks for authentication, which cannot happen off-session" : e.message;
    await raiseBillingAlert(tx, t.accountId, "auto_topup_failed", `auto_topup_failed:${t.id}`, { auto_topup_id: t.id, amount_micro_usd: t.amountMicroUsd, code: e.code, reason });
  });
  return true;
}
