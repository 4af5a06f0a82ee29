/**
 * POST /api/stripe/webhook: verify the signature on the raw body, refuse timestamps more than
 * five minutes old or in the future (stripe-node only checks age), then give each event type
 * its own function. A 5xx makes Stripe retry, so it is kept for what a retry can fix (our
 * database or Stripe's API unreachable); a signed event that is malformed answers 400, and one
 * about an object Stripe does not know (or not ours) is recorded and answered 200.
 */
import Stripe from "stripe";
import type { DB } from "../../db/client";
import type { Result } from "../result";
import { isStorableText } from "../validate/text";
import { saveCardFromSession } from "./auto-topup";
import { fulfillCheckoutSession, fulfillPaymentIntent, recordChargeRefund, recordDispute, recordEventOnly } from "./stripe-fulfill";

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

/**
 * The `t=` of a Stripe-Signature header that stripe-node verifies the signature with, or null:
 * parsed exactly as its parseHeader does (the last `t=` wins, key compared untrimmed, value
 * through parseInt), so the freshness check and the signature look at the same number.
 */
export function signatureTimestamp(header: string): number | null {
  let t = -1;
  for (const item of header.split(",")) {
    const kv = item.split("=");
    if (kv[0] === "t") t = parseInt(kv[1]!, 10);
  }
  return Number.isSafeInteger(t) && t >= 0 ? t : null;
}

const storableId = (v: unknown, max = 255): v is string => typeof v === "string" && v.length > 0 && v.length <= max && isStorableText(v);

/** What the handlers below rely on, checked before any of them runs. */
function checkShape(event: Stripe.Event): Result<void, string> {
  if (!event || typeof event !== "object" || Array.isArray(event)) return { ok: false, error: "not a JSON object" };
  const e = event as unknown as { id?: unknown; type?: unknown; data?: { object?: Record<string, unknown> } };
  if (!storableId(e.id)) return { ok: false, error: "event id is missing or not a string" };
  if (!storableId(e.type)) return { ok: false, error: "event type is missing or not a string" };
  const obj = e.data?.object;
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return { ok: false, error: "data.object is missing" };
  const needsId = e.type.startsWith("checkout.session.") || e.type.startsWith("payment_intent.") || e.type === "charge.refunded" || e.type.startsWith("charge.dispute.");
  if (needsId && !storableId(obj.id)) return { ok: false, error: "data.object.id is missing or not a string" };
  if (e.type.startsWith("charge.dispute.") && (!Number.isSafeInteger(obj.amount) || (obj.amount as number) < 0)) {
    return { ok: false, error: "data.object.amount is not a whole number of cents" };
  }
  if (e.type.startsWith("charge.dispute.")) {
    // Disputes are taken from the event body (not re-read), so their fields are checked here.
    if (typeof obj.currency !== "string") return { ok: false, error: "data.object.currency is not a string" };
    const pi = obj.payment_intent;
    if (pi !== null && pi !== undefined && !storableId(pi) && !(typeof pi === "object" && !Array.isArray(pi))) {
      return { ok: false, error: "data.object.payment_intent is not an id" };
    }
  }
  return { ok: true, value: undefined };
}

/**
 * Stripe answered 404 for an object the event names: no retry will make it exist. Told by the
 * error's fields, not `instanceof`: the Next bundle and the server load two copies of stripe-node,
 * and an error from one is no instance of the other's class (that answered 500 for days).
 */
function isMissingObject(err: unknown): boolean {
  const e = err as { type?: unknown; statusCode?: unknown; code?: unknown } | null;
  return e?.type === "StripeInvalidRequestError" && (e.statusCode === 404 || e.code === "resource_missing");
}

export function verifyStripeEvent(stripe: Stripe, input: WebhookInput): Result<Stripe.Event, string> {
  if (!input.signature) return { ok: false, error: "missing Stripe-Signature header" };
  const now = input.now ?? Date.now();
  const t = signatureTimestamp(input.signature);
  if (t === null) return { ok: false, error: "malformed Stripe-Signature header" };
  if (t - Math.floor(now / 1000) > WEBHOOK_TOLERANCE_S) return { ok: false, error: "timestamp is in the future" };
  try {
    const event = stripe.webhooks.constructEvent(input.rawBody, input.signature, input.secret, WEBHOOK_TOLERANCE_S, undefined, now);
    return { ok: true, value: event };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : "invalid signature" };
  }
}

export async function handleStripeWebhook(db: DB, stripe: Stripe, input: WebhookInput): Promise<WebhookResult> {
  const verified = verifyStripeEvent(stripe, input);
  if (!verified.ok) return { status: 400, body: { error: { message: `Webhook signature verification failed: ${verified.error}` } } };
  const event = verified.value;
  const shape = checkShape(event);
  if (!shape.ok) return { status: 400, body: { error: { message: `Malformed event: ${shape.error}` } } };
  const ref = { id: event.id, type: event.type };
  try {
    return await dispatch(db, stripe, event, ref);
  } catch (err) {
    if (!isMissingObject(err)) throw err;
    const fresh = await recordEventOnly(db, ref);
    return { status: 200, body: { received: true, outcome: fresh ? "ignored" : "duplicate_event", reason: "unknown to Stripe" } };
  }
}

async function dispatch(db: DB, stripe: Stripe, event: Stripe.Event, ref: { id: string; type: string }): Promise<WebhookResult> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      if (event.data.object.mode === "setup") {
        // A card saved for auto top-up (the Billing page's return saves it too).
        const saved = await saveCardFromSession(db, stripe, event.data.object.id);
        const fresh = await recordEventOnly(db, ref);
        return { status: 200, body: { received: true, outcome: fresh ? (saved.status === "saved" ? "card_saved" : "ignored") : "duplicate_event" } };
      }
      const outcome = await fulfillCheckoutSession(db, stripe, event.data.object.id, { event: ref });
      return { status: 200, body: { received: true, outcome: outcome.status } };
    }
    case "payment_intent.succeeded": {
      // An auto top-up: credited once, whether the worker's answer or this event comes first.
      const outcome = await fulfillPaymentIntent(db, stripe, event.data.object.id, { event: ref });
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
