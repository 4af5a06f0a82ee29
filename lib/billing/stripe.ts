/**
 * Stripe Checkout top-ups. Enabled by STRIPE_SECRET_KEY; STRIPE_API_BASE points stripe-node at
 * a local fake in tests (host/port/protocol). Amounts are whole US cents on the Stripe side and
 * micro-USD (cents × 10,000) on ours.
 */
import { and, eq, gt } from "drizzle-orm";
import Stripe from "stripe";
import type { DB } from "../../db/client";
import { checkoutSessions } from "../../db/schema";
import { env } from "../env";
import { logger } from "../logger";
import { processSingleton } from "../process-singleton";
import type { Result } from "../result";

export const MICRO_PER_CENT = 10_000;
/** Top-up bounds and presets in USD cents. */
export const TOPUP_MIN_CENTS = 500;
export const TOPUP_MAX_CENTS = 1_000_000;
export const TOPUP_PRESETS_CENTS = [1_000, 2_500, 5_000, 10_000];

/** stripe-node config for a base URL such as `http://127.0.0.1:12111`. */
export function stripeConnection(base: string | undefined): { host?: string; port?: number; protocol?: "http" | "https" } {
  if (!base) return {};
  const url = new URL(base);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === "http" ? 80 : 443, protocol };
}

const slot = processSingleton("gateway.stripe", () => ({ current: undefined as { key: string; base?: string; client: Stripe } | undefined }));

/**
 * The one answer to "are card payments on?": a Stripe client when both the secret key and the
 * webhook secret are set (credits and saved cards are confirmed through the webhook), else null.
 * Checkout, the success page, auto top-up (console and worker), receipts and the webhook route
 * all ask this, so a gateway whose console says card top-ups are off never charges a card.
 */
export function stripePayments(): Stripe | null {
  return env().STRIPE_WEBHOOK_SECRET ? stripeClient() : null;
}

/** The process-wide Stripe client (kept per key and base), or null without a key. */
function stripeClient(): Stripe | null {
  const e = env();
  if (!e.STRIPE_SECRET_KEY) return null;
  const g = slot();
  const cached = g.current;
  if (cached && cached.key === e.STRIPE_SECRET_KEY && cached.base === e.STRIPE_API_BASE) return cached.client;
  const client = new Stripe(e.STRIPE_SECRET_KEY, {
    ...stripeConnection(e.STRIPE_API_BASE),
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: "generation-gateway" },
  });
  g.current = { key: e.STRIPE_SECRET_KEY, base: e.STRIPE_API_BASE, client };
  return client;
}

/** Validates a top-up amount in cents against the bounds: the cents, or the form's message. */
export function checkTopupCents(cents: number): Result<number, string> {
  if (!Number.isSafeInteger(cents)) return { ok: false, error: "Enter an amount in dollars and cents." };
  if (cents < TOPUP_MIN_CENTS) return { ok: false, error: `The minimum top-up is $${TOPUP_MIN_CENTS / 100}.` };
  if (cents > TOPUP_MAX_CENTS) return { ok: false, error: `The maximum top-up is $${(TOPUP_MAX_CENTS / 100).toLocaleString("en-US")}.` };
  return { ok: true, value: cents };
}

export interface CheckoutInput {
  accountId: string;
  userId: string;
  email: string;
  amountCents: number;
}

/**
 * A Checkout Session in payment mode. The account rides in client_reference_id and metadata
 * (also copied onto the PaymentIntent, so refunds and disputes find their account); the amount
 * credited later is read back from the session Stripe reports, never from metadata. Recorded, so
 * deleting the organisation can expire it (expireOpenCheckouts).
 */
export async function createCheckoutSession(db: DB, stripe: Stripe, input: CheckoutInput): Promise<{ id: string; url: string }> {
  const base = env().publicBaseUrl;
  const metadata = { accountId: input.accountId, userId: input.userId };
  const session = await stripe.checkout.sessions.create({
    mode: "payment",
    client_reference_id: input.accountId,
    customer_email: input.email,
    metadata,
    payment_intent_data: { metadata },
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: "usd",
          unit_amount: input.amountCents,
          product_data: { name: "Generation Gateway balance top-up" },
        },
      },
    ],
    success_url: `${base}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${base}/billing/cancel`,
  });
  if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
  await db.insert(checkoutSessions).values({ id: session.id, accountId: input.accountId, mode: "payment" }).onConflictDoNothing();
  return { id: session.id, url: session.url };
}

/** Stripe's Checkout Sessions expire 24 hours after they are made; older ones need nothing. */
const CHECKOUT_LIFETIME_MS = 24 * 3_600_000;

/**
 * Expires every Checkout Session of the account that may still be open (an organisation was
 * deleted: nobody should pay into it). Stripe refuses sessions no longer open, which is fine;
 * a payment that completes anyway is refunded when it arrives (stripe-fulfill.ts). Returns how
 * many were expired.
 */
export async function expireOpenCheckouts(db: DB, stripe: Stripe, accountId: string): Promise<number> {
  const open = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.accountId, accountId), gt(checkoutSessions.createdAt, new Date(Date.now() - CHECKOUT_LIFETIME_MS))));
  let expired = 0;
  for (const s of open) {
    try {
      await stripe.checkout.sessions.expire(s.id);
      expired++;
    } catch (err) {
      // Paid, expired or unknown already: only a failure to reach Stripe is worth a warning.
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) logger().warn({ err: (err as Error).message, accountId, sessionId: s.id }, "could not expire a Checkout Session");
    }
  }
  return expired;
}
