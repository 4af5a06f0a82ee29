/**
 * Stripe top-ups end to end below HTTP: stripe-node pointed at the fake Stripe API for session
 * creation and retrieval, webhook events signed locally with stripe-node's test-header helper,
 * credits checked in the ledger (PGlite, or PostgreSQL when DATABASE_URL is set).
 */
import { and, eq, like } from "drizzle-orm";
import { createRequire } from "node:module";
import type Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../db/client";
import { accounts, auditLog, ledgerEntries, stripeEvents } from "../db/schema";
import { createUser } from "../lib/auth/users";
import { ledgerSum } from "../lib/billing/ledger";
import { createCheckoutSession, stripeConnection } from "../lib/billing/stripe";
import { fulfillCheckoutSession } from "../lib/billing/stripe-fulfill";
import { handleStripeWebhook } from "../lib/billing/stripe-webhook";
import { resetEnvCache } from "../lib/env";
import { createOrg, deleteOrg } from "../lib/orgs/manage";
import type { FakeStripe } from "./fakes/stripe-api";
import { useFakeStripeDb } from "./support/fake-stripe-db";

const SECRET = "whsec_test_console_secret";
const env = useFakeStripeDb("console-stripe");
let fake: FakeStripe;
let stripe: Stripe;
let db: DB;
beforeAll(() => ({ fake, stripe, db } = env));

let n = 0;
async function newAccount() {
  const r = await createUser(db, { email: `stripe-${Date.now()}-${n++}@example.test`, password: "password-123", via: "test" });
  if (!r.ok) throw new Error("user not created");
  return r.value;
}

async function balance(accountId: string): Promise<number> {
  const [row] = await db.select({ b: accounts.balanceMicroUsd }).from(accounts).where(eq(accounts.id, accountId));
  return row!.b;
}

function signed(event: object, opts: { secret?: string; timestamp?: number; pretty?: boolean } = {}) {
  const payload = opts.pretty ? JSON.stringify(event, null, 2) : JSON.stringify(event);
  const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET, timestamp: opts.timestamp });
  return { rawBody: payload, signature, secret: SECRET };
}

async function paidSession(cents = 2_500) {
  const user = await newAccount();
  const { id } = await createCheckoutSession(db, stripe, { accountId: user.accountId, userId: user.id, email: user.email, amountCents: cents });
  fake.pay(id);
  return { user, sessionId: id };
}

describe("Checkout Session creation", () => {
  it("sends a payment-mode session with the account in metadata and the amount in cents", async () => {
    const user = await newAccount();
    const before = fake.requests.length;
    const session = await createCheckoutSession(db, stripe, { accountId: user.accountId, userId: user.id, email: user.email, amountCents: 1_234 });
    const req = fake.requests[before]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/checkout/sessions");
    expect(req.authorization).toBe("Bearer sk_test_fake");
    expect(req.body).toMatchObject({
      mode: "payment",
      client_reference_id: user.accountId,
      metadata: { accountId: user.accountId, userId: user.id },
      payment_intent_data: { metadata: { accountId: user.accountId } },
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "1234" } }],
      success_url: "http://gateway.test/billing/success?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "http://gateway.test/billing/cancel",
    });
    expect(session.url).toBe(`${fake.url}/pay/${session.id}`);
  });
});

describe("webhook", () => {
  it("credits the session amount once when the same event arrives twice", async () => {
    const { user, sessionId } = await paidSession(2_500);
    const event = fake.event("checkout.session.completed", fake.sessions.get(sessionId)!);
    const first = await handleStripeWebhook(db, stripe, signed(event));
    expect(first).toEqual({ status: 200, body: { received: true, outcome: "credited" } });
    const again = await handleStripeWebhook(db, stripe, signed(event));
    expect(again).toEqual({ status: 200, body: { received: true, outcome: "duplicate_event" } });
    expect(await balance(user.accountId)).toBe(25_000_000);
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, user.accountId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "topup", deltaMicroUsd: 25_000_000, balanceAfterMicroUsd: 25_000_000, idempotencyKey: `stripe:session:${sessionId}` });
  });

  it("credits once when completed and async_payment_succeeded both arrive, in either order, and the success page checks too", async () => {
    for (const order of [["checkout.session.completed", "checkout.session.async_payment_succeeded"], ["checkout.session.async_payment_succeeded", "checkout.session.completed"]]) {
      const { user, sessionId } = await paidSession(1_000);
      const session = fake.sessions.get(sessionId)!;
      const results = await Promise.all(order.map((type) => handleStripeWebhook(db, stripe, signed(fake.event(type, session)))));
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      expect(results.map((r) => r.body.outcome).sort()).toEqual(["already_credited", "credited"]);
      const page = await fulfillCheckoutSession(db, stripe, sessionId, { expectAccountId: user.accountId });
      expect(page.status).toBe("already_credited");
      expect(await balance(user.accountId)).toBe(10_000_000);
      expect(await ledgerSum(db, user.accountId)).toBe(10_000_000);
      expect(await db.select().from(stripeEvents).where(like(stripeEvents.type, "checkout.session.%"))).not.toHaveLength(0);
    }
  });

  it("credits once under five concurrent deliveries of one event", async () => {
    const { user, sessionId } = await paidSession(500);
    const event = fake.event("checkout.session.completed", fake.sessions.get(sessionId)!);
    const results = await Promise.all(Array.from({ length: 5 }, () => handleStripeWebhook(db, stripe, signed(event))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.outcome === "credited")).toHaveLength(1);
    expect(await balance(user.accountId)).toBe(5_000_000);
  });

  it("takes the amount from the session Stripe reports, not from the event body or metadata", async () => {
    const { user, sessionId } = await paidSession(700);
    const forged = { ...fake.sessions.get(sessionId)!, amount_total: 9_999_999, metadata: { accountId: user.accountId, amount: "9999999" } };
    const r = await handleStripeWebhook(db, stripe, signed(fake.event("checkout.session.completed", forged)));
    expect(r.body.outcome).toBe("credited");
    expect(await balance(user.accountId)).toBe(7_000_000);
  });

  it("refuses a bad signature with 400 and credits nothing", async () => {
    const { user, sessionId } = await paidSession(2_000);
    const event = fake.event("checkout.session.completed", fake.sessions.get(sessionId)!);
    const good = signed(event);
    const cases = [
      { ...good, signature: signed(event, { secret: "whsec_someone_else" }).signature },
      { ...good, rawBody: good.rawBody.replace('"livemode":false', '"livemode":true ') },
      { ...good, signature: "t=123,v1=deadbeef" },
      { ...good, signature: "" },
      { ...good, signature: null },
      signed(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      signed(event, { timestamp: Math.floor(Date.now() / 1000) + 600 }),
    ];
    for (const c of cases) {
      const r = await handleStripeWebhook(db, stripe, c);
      expect(r.status).toBe(400);
    }
    expect(await balance(user.accountId)).toBe(0);
    expect(await db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toHaveLength(0);
    // Within the tolerance, and pretty-printed (the raw body is verified, never re-serialised).
    const ok = await handleStripeWebhook(db, stripe, signed(event, { timestamp: Math.floor(Date.now() / 1000) - 299, pretty: true }));
    expect(ok.status).toBe(200);
    expect(await balance(user.accountId)).toBe(20_000_000);
  });

  it("waits for async_payment_succeeded when a delayed method completes unpaid", async () => {
    const user = await newAccount();
    const { id } = await createCheckoutSession(db, stripe, { accountId: user.accountId, userId: user.id, email: user.email, amountCents: 1_500 });
    fake.pay(id, { paymentStatus: "unpaid" });
    const pending = await handleStripeWebhook(db, stripe, signed(fake.event("checkout.session.completed", fake.sessions.get(id)!)));
    expect(pending.body.outcome).toBe("pending");
    expect(await balance(user.accountId)).toBe(0);
    fake.sessions.get(id)!.payment_status = "paid";
    const paid = await handleStripeWebhook(db, stripe, signed(fake.event("checkout.session.async_payment_succeeded", fake.sessions.get(id)!)));
    expect(paid.body.outcome).toBe("credited");
    expect(await balance(user.accountId)).toBe(15_000_000);
  });

  it("never credits another account from the success page", async () => {
    const { sessionId } = await paidSession(1_000);
    const other = await newAccount();
    const r = await fulfillCheckoutSession(db, stripe, sessionId, { expectAccountId: other.accountId });
    expect(r.status).toBe("ignored");
    expect(await balance(other.accountId)).toBe(0);
  });

  it("records refunds and disputes as negative ledger rows, each once", async () => {
    const { user, sessionId } = await paidSession(2_000);
    await handleStripeWebhook(db, stripe, signed(fake.event("checkout.session.completed", fake.sessions.get(sessionId)!)));
    const first = fake.event("charge.refunded", fake.refund(sessionId, 500));
    const second = fake.event("charge.refunded", fake.refund(sessionId, 300));
    // Out of order and twice: the cumulative amount refunded is what counts.
    expect((await handleStripeWebhook(db, stripe, signed(second))).body.outcome).toBe("debited");
    expect((await handleStripeWebhook(db, stripe, signed(first))).body.outcome).toBe("nothing_to_do");
    expect((await handleStripeWebhook(db, stripe, signed(second))).body.outcome).toBe("duplicate_event");
    expect(await balance(user.accountId)).toBe(20_000_000 - 8_000_000);
    const dispute = fake.dispute(sessionId, 2_000);
    expect((await handleStripeWebhook(db, stripe, signed(fake.event("charge.dispute.created", dispute)))).body.outcome).toBe("debited");
    // A dispute may take the balance below zero; paid requests then get 402 until a top-up.
    expect(await balance(user.accountId)).toBe(-8_000_000);
    const won = await handleStripeWebhook(db, stripe, signed(fake.event("charge.dispute.closed", { ...dispute, status: "won" })));
    expect(won.body.outcome).toBe("credited");
    expect(await balance(user.accountId)).toBe(12_000_000);
    expect(await ledgerSum(db, user.accountId)).toBe(12_000_000);
    const kinds = await db.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(and(eq(ledgerEntries.accountId, user.accountId)));
    expect(kinds.map((k) => k.kind).sort()).toEqual(["stripe_dispute", "stripe_dispute", "stripe_refund", "topup"]);
  });
});

describe("webhook edge cases (issue 12, item 10)", () => {
  it("checks the freshness of the t= stripe-node verifies (the last), so a forged future t fails", async () => {
    const { user, sessionId } = await paidSession(1_200);
    const event = fake.event("checkout.session.completed", fake.sessions.get(sessionId)!);
    const future = Math.floor(Date.now() / 1000) + 3_600;
    const payload = JSON.stringify(event);
    // Signed for a timestamp an hour ahead (a replayable "fresh" event), with an old t= put first.
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: future });
    const forged = `t=${Math.floor(Date.now() / 1000)},${header}`;
    const r = await handleStripeWebhook(db, stripe, { rawBody: payload, signature: forged, secret: SECRET });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/future/);
    expect(await balance(user.accountId)).toBe(0);
    // The same trick the other way round (fresh t= last, stale one first) is what stripe-node checks: accepted.
    const now = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const ok = await handleStripeWebhook(db, stripe, { rawBody: payload, signature: `t=${future},${now}`, secret: SECRET });
    expect(ok.status).toBe(200);
    expect(await balance(user.accountId)).toBe(12_000_000);
  });

  it("answers validly signed malformed events with 400 and unknown objects with 200 (recorded), never a throw", async () => {
    const base = fake.event("checkout.session.completed", { id: "cs_x" } as never) as unknown as Record<string, unknown>;
    const malformed: unknown[] = [
      {},
      { ...base, id: undefined },
      { ...base, id: 42 },
      { ...base, id: "evt_\u0000nul" },
      { ...base, id: "evt_\ud800" },
      { ...base, type: null },
      { ...base, data: null },
      { ...base, data: { object: "cs_x" } },
      { ...base, data: { object: { id: 7 } } },
      { ...base, type: "charge.refunded", data: { object: {} } },
      { ...base, type: "charge.dispute.created", data: { object: { id: "dp_1", amount: "lots", currency: "usd" } } },
      { ...base, type: "charge.dispute.created", data: { object: { id: "dp_1", amount: 100, currency: 5 } } },
      { ...base, type: "charge.dispute.created", data: { object: { id: "dp_1", amount: 100, currency: "usd", payment_intent: 12 } } },
      [],
      "just a string",
      null,
    ];
    for (const body of malformed) {
      const r = await handleStripeWebhook(db, stripe, signed(body as object));
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const unknown: [string, unknown][] = [
      ["checkout.session.completed", { id: "cs_does_not_exist" }],
      ["checkout.session.async_payment_succeeded", { id: "cs_../../v1/customers" }],
      ["charge.refunded", { id: "ch_does_not_exist" }],
      ["charge.dispute.created", { id: "dp_unknown", amount: 100, currency: "usd", payment_intent: "pi_does_not_exist" }],
      ["customer.created", { id: "cus_1" }],
    ];
    // The server's Next bundle and its own modules load two copies of stripe-node (ESM and CJS
    // here): a 404 from the other copy's client must be recognised too, not answered 500.
    const otherCopy = createRequire(import.meta.url)("stripe") as typeof Stripe;
    const foreign = new otherCopy("sk_test_fake", { ...stripeConnection(fake.url), maxNetworkRetries: 0 });
    const viaForeign = await handleStripeWebhook(db, foreign, signed({ ...base, id: `evt_unknown_foreign_${n++}`, data: { object: { id: "cs_unknown_to_stripe", mode: "payment" } } }));
    expect(viaForeign).toMatchObject({ status: 200, body: { received: true, reason: "unknown to Stripe" } });
    for (const [type, object] of unknown) {
      const event = { ...base, id: `evt_unknown_${type}_${Math.random().toString(36).slice(2)}`, type, data: { object } };
      const r = await handleStripeWebhook(db, stripe, signed(event));
      expect(r.status, type).toBe(200);
      expect(["ignored", "duplicate_event"], type).toContain(r.body.outcome);
      expect(await db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id as string)), type).toHaveLength(1);
      // Delivered again: answered as a duplicate, still 200.
      expect((await handleStripeWebhook(db, stripe, signed(event))).body.outcome, type).toBe("duplicate_event");
    }
  });
});

describe("an organisation deleted with a Checkout open (issue 32, item 6)", () => {
  it("deletion expires its open sessions; a payment that still arrives is refunded, booked in and out, once", async () => {
    process.env.STRIPE_SECRET_KEY = "sk_test_fake";
    process.env.STRIPE_WEBHOOK_SECRET = "whsec_test_fake"; // card payments are on: key and webhook secret
    process.env.STRIPE_API_BASE = fake.url;
    resetEnvCache();
    const owner = await newAccount();
    const org = await createOrg(db, owner, "Short-lived");
    const who = { id: owner.id, accountId: org.id, email: owner.email };
    const open = await createCheckoutSession(db, stripe, { ...who, userId: owner.id, amountCents: 1_000 });
    // A delayed payment method: the session is complete (no longer open, so it cannot be expired), the money comes later.
    const delayed = await createCheckoutSession(db, stripe, { ...who, userId: owner.id, amountCents: 2_500 });
    fake.pay(delayed.id, { paymentStatus: "unpaid" });
    expect((await handleStripeWebhook(db, stripe, signed(fake.event("checkout.session.completed", fake.sessions.get(delayed.id)!)))).body.outcome).toBe("pending");

    await deleteOrg(db, { ...who, orgRole: "owner" });
    expect(fake.sessions.get(open.id)!.status).toBe("expired");
    expect(fake.requests.filter((r) => r.path.endsWith("/expire")).map((r) => r.path)).toEqual([`/v1/checkout/sessions/${open.id}/expire`, `/v1/checkout/sessions/${delayed.id}/expire`]);

    fake.pay(delayed.id);
    const late = fake.event("checkout.session.async_payment_succeeded", fake.sessions.get(delayed.id)!);
    expect((await handleStripeWebhook(db, stripe, signed(late))).body).toMatchObject({ received: true, outcome: "refunded" });
    expect(fake.refunds).toHaveLength(1);
    expect(fake.refunds[0]).toMatchObject({ payment_intent: fake.sessions.get(delayed.id)!.payment_intent, amount: 2_500 });
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, org.id)).orderBy(ledgerEntries.id);
    expect(rows.map((r) => [r.kind, r.deltaMicroUsd])).toEqual([
      ["topup", 25_000_000],
      ["stripe_refund", -25_000_000],
    ]);
    expect(await balance(org.id)).toBe(0);
    const [audit] = await db.select().from(auditLog).where(and(eq(auditLog.targetId, org.id), eq(auditLog.action, "billing.refund_deleted_organisation")));
    expect(audit).toMatchObject({ actor: "stripe" });

    // Stripe's charge.refunded, and the same payment announced again: nothing more moves.
    const charge = fake.refund(delayed.id, 0);
    expect((await handleStripeWebhook(db, stripe, signed(fake.event("charge.refunded", charge)))).body.outcome).toBe("nothing_to_do");
    expect((await handleStripeWebhook(db, stripe, signed(fake.event("checkout.session.completed", fake.sessions.get(delayed.id)!)))).body.outcome).toBe("refunded");
    expect(fake.refunds).toHaveLength(1);
    expect(await balance(org.id)).toBe(0);
    expect(await ledgerSum(db, org.id)).toBe(0);
  });
});
