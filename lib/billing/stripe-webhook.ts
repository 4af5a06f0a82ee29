/**
 * POST /api/stripe/webhook: verify the signature on the raw body, refuse timestamps more than
 * five minutes old or in the future (stripe-node only checks age), then give each event type
 * its own function. A 5xx makes Stripe retry; every handled or ignored event answers 200.
 */
import type Stripe from "stripe";
import type { DB } from "../../db/client";
import { fulfillCheckoutSession, recordChargeRefund, recordDispute, recordEventOnly } from "./stripe-fulfill";

export const WEBHOOK_TOLERANCE_S = 300;

export interface WebhookInput {
  rawBody: string;
  signature: string | null;
  secret: string;
  /** Injected clock (ms) for tests. */
  now?: number;
}

export interface WebhookResult {
  status: number;
  body: Record<string, unknown>;
}

/** The `t=` of a Stripe-Signature header, or null. */
export function signatureTimestamp(header: string): number | null {
  for (const part of header.split(",")) {
    const [k, v] = part.split("=");
    if (k?.trim() === "t" && v && /^\d+$/.test(v.trim())) return Number(v.trim());
  }
  return null;
}

export function verifyStripeEvent(stripe: Stripe, input: WebhookInput): { ok: true; event: Stripe.Event } | { ok: false; message: string } {
  if (!input.signature) return { ok: false, message: "missing Stripe-Signature header" };
  const now = input.now ?? Date.now();
  const t = signatureTimestamp(input.signature);
  if (t === null) return { ok: false, message: "malformed Stripe-Signature header" };
  if (t - Math.floor(now / 1000) > WEBHOOK_TOLERANCE_S) return { ok: false, message: "timestamp is in the future" };
  try {
    const event = stripe.webhooks.constructEvent(input.rawBody, input.signature, input.secret, WEBHOOK_TOLERANCE_S, undefined, now);
    return { ok: true, event };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : "invalid signature" };
  }
}

export async function handleStripeWebhook(db: DB, stripe: Stripe, input: WebhookInput): Promise<WebhookResult> {
  const verified = verifyStripeEvent(stripe, input);
  if (!verified.ok) return { status: 400, body: { error: { message: `Webhook signature verification failed: ${verified.message}` } } };
  const event = verified.event;
  const ref = { id: event.id, type: event.type };
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const outcome = await fulfillCheckoutSession(db, stripe, event.data.object.id, { event: ref });
      return { status: 200, body: { received: true, outcome: outcome.status } };
    }
    case "charge.refunded": {
      const outcome = await recordChargeRefund(db, stripe, event.data.object.id, ref);
      return { status: 200, body: { received: true, outcome: outcome.status } };
    }
    case "charge.dispute.created":
    case "charge.dispute.closed": {
      const outcome = await recordDispute(db, stripe, event.data.object, ref);
      return { status: 200, body: { received: true, outcome: outcome.status } };
    }
    default: {
      // Including checkout.session.async_payment_failed: nothing to credit, nothing to undo.
      const fresh = await recordEventOnly(db, ref);
      return { status: 200, body: { received: true, outcome: fresh ? "ignored" : "duplicate_event" } };
    }
  }
}
