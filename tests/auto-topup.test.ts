/**
 * Auto top-up below HTTP (decision 0029): stripe-node pointed at the fake Stripe API, which
 * enforces Stripe's refusals (off_session needs confirm, the card must belong to the customer, a
 * declined card is a 402 card_error) and replays an Idempotency-Key's first answer. A card is saved
 * through a setup-mode Checkout Session; a balance crossing below the threshold charges once —
 * with three workers at once, after a crash between Stripe's answer and the credit, and with the
 * webhook arriving too — and re-arms only once the balance is back above; declined cards and
 * required authentication end in their states with an alert and no credit.
 */
import { and, eq, like } from "drizzle-orm";
import type Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../db/client";
import { accounts, alerts, autoTopups, ledgerEntries, memberships } from "../db/schema";
import { createUser } from "../lib/auth/users";
import { autoTopupSchema, autoTopupView, chargeDueAutoTopups, removeCard, saveCardFromSession, setAutoTopup, startCardSetup } from "../lib/billing/auto-topup";
import { applyLedgerChange, ledgerSum } from "../lib/billing/ledger";
import { handleStripeWebhook } from "../lib/billing/stripe-webhook";
import { resetEnvCache } from "../lib/env";
import { createOrg, removeMember } from "../lib/orgs/manage";
import type { FakeStripe } from "./fakes/stripe-api";
import { useFakeStripeDb } from "./support/fake-stripe-db";

const SECRET = "whsec_test_auto_topup";
const env = useFakeStripeDb("auto-topup");
let fake: FakeStripe;
let stripe: Stripe;
let db: DB;
beforeAll(() => ({ fake, stripe, db } = env));

let n = 0;
/** A user whose organisation has `usd` and a saved card ending in `last4`. */
async function withCard(usd: number, last4 = "4242") {
  const r = await createUser(db, { email: `topup-${Date.now()}-${n++}@example.test`, password: "password-123", via: "test" });
  if (!r.ok) throw new Error("user not created");
  const user = r.value;
  if (usd) await applyLedgerChange(db, { accountId: user.accountId, deltaMicroUsd: usd * 1_000_000, kind: "admin_credit", idempotencyKey: `seed:${user.accountId}` });
  const { url } = await startCardSetup(db, stripe, { accountId: user.accountId, userId: user.id, email: user.email });
  const sessionId = url.split("/pay/")[1]!;
  fake.saveCard(sessionId, last4);
  expect(await saveCardFromSession(db, stripe, sessionId, user.accountId)).toMatchObject({ status: "saved", card: `Visa •••• ${last4}` });
  return user;
}

const spend = (accountId: string, usd: number, key: string) => applyLedgerChange(db, { accountId, deltaMicroUsd: -Math.round(usd * 1_000_000), kind: "charge", idempotencyKey: `${accountId}:${key}` });
const balance = async (accountId: string) => (await db.select({ b: accounts.balanceMicroUsd }).from(accounts).where(eq(accounts.id, accountId)))[0]!.b;
const rows = (accountId: string) => db.select().from(autoTopups).where(eq(autoTopups.accountId, accountId)).orderBy(autoTopups.createdAt);
const alertKinds = async (accountId: string) => (await db.select().from(alerts).where(eq(alerts.accountId, accountId))).map((a) => a.kind).sort();
const intentsOf = (accountId: string) => [...fake.intents.values()].filter((pi) => (pi.metadata as Record<string, string>).accountId === accountId);
const on = (threshold: string, amount: string) => autoTopupSchema.parse({ enabled: true, thresholdUsd: threshold, amountUsd: amount });

describe("auto top-up", () => {
  it("saves a card through Checkout in setup mode, on a Stripe customer of the organisation", async () => {
    const user = await withCard(0);
    const setup = fake.requests.find((r) => r.path === "/v1/checkout/sessions" && r.body.mode === "setup" && (r.body.metadata as Record<string, string>).accountId === user.accountId)!;
    expect(setup.body).toMatchObject({ currency: "usd", client_reference_id: user.accountId, metadata: { purpose: "auto_topup_card" } });
    expect(String(setup.body.customer)).toMatch(/^cus_/);
    expect(await autoTopupView(db, user.accountId, true)).toMatchObject({ card: "Visa •••• 4242", enabled: false });
    // A session of another organisation saves nothing here.
    const other = await withCard(0);
    const otherSession = fake.requests.filter((r) => r.path === "/v1/checkout/sessions" && r.body.mode === "setup").length;
    expect(otherSession).toBeGreaterThan(1);
    const [s] = [...fake.sessions.values()].filter((x) => x.client_reference_id === other.accountId);
    expect(await saveCardFromSession(db, stripe, s!.id, user.accountId)).toEqual({ status: "ignored", reason: "session belongs to another organisation" });
  });

  it("a crossing charges once with three workers at once and the webhook too; it re-arms only above the threshold", async () => {
    const user = await withCard(6);
    await setAutoTopup(db, user.accountId, on("5", "10"));
    await spend(user.accountId, 2, "c1");
    expect(await rows(user.accountId)).toHaveLength(1);
    const counts = await Promise.all([chargeDueAutoTopups(db, stripe), chargeDueAutoTopups(db, stripe), chargeDueAutoTopups(db, stripe)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    const [pi] = intentsOf(user.accountId);
    expect(intentsOf(user.accountId)).toHaveLength(1);
    const create = fake.requests.find((r) => r.path === "/v1/payment_intents" && (r.body.metadata as Record<string, string>).accountId === user.accountId)!;
    expect(create.body).toMatchObject({ amount: "1000", currency: "usd", off_session: "true", confirm: "true" });
    expect(create.idempotencyKey).toMatch(/^auto-topup:atu_/);
    // Stripe's webhook arrives as well: nothing more is credited.
    const event = fake.event("payment_intent.succeeded", pi!);
    const payload = JSON.stringify(event);
    const hook = await handleStripeWebhook(db, stripe, { rawBody: payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }), secret: SECRET });
    expect(hook.body).toMatchObject({ received: true, outcome: "already_credited" });
    expect(await balance(user.accountId)).toBe(14_000_000);
    expect(await ledgerSum(db, user.accountId)).toBe(14_000_000);
    expect((await rows(user.accountId))[0]).toMatchObject({ state: "succeeded", paymentIntentId: pi!.id });
    expect(await alertKinds(user.accountId)).toEqual(["auto_topup_succeeded"]);

    // Above the threshold again (re-armed): the next fall charges once more; spending further below does not.
    await spend(user.accountId, 10, "c2");
    await spend(user.accountId, 1, "c3");
    expect(await rows(user.accountId)).toHaveLength(2);
    expect(await chargeDueAutoTopups(db, stripe)).toBe(1);
    expect(await balance(user.accountId)).toBe(13_000_000);
    expect(intentsOf(user.accountId)).toHaveLength(2);
  });

  it("a crash after Stripe charged but before the credit: the retry replays the same PaymentIntent and credits once", async () => {
    const user = await withCard(6);
    await setAutoTopup(db, user.accountId, on("5", "20"));
    await spend(user.accountId, 2, "c1");
    // Stripe charges the card; the answer never reaches the worker (cut connection, or a crash).
    // (stripe-node itself retries a lost answer with the same key: every answer is lost here.)
    fake.dropAnswers = 3;
    const before = fake.requests.length;
    expect(await chargeDueAutoTopups(db, stripe)).toBe(0);
    expect(fake.requests.length - before).toBeGreaterThan(1);
    fake.dropAnswers = 0;
    const [row] = await rows(user.accountId);
    expect(row).toMatchObject({ state: "charging" });
    expect(await balance(user.accountId)).toBe(4_000_000);
    // Its lease lapses; the retry sends the same Idempotency-Key and parameters: Stripe replays.
    await db.update(autoTopups).set({ lockedUntil: new Date(Date.now() - 1) }).where(eq(autoTopups.id, row!.id));
    expect(await chargeDueAutoTopups(db, stripe)).toBe(1);
    expect(intentsOf(user.accountId)).toHaveLength(1);
    expect(await balance(user.accountId)).toBe(24_000_000);
    const credits = await db.select().from(ledgerEntries).where(and(eq(ledgerEntries.accountId, user.accountId), like(ledgerEntries.idempotencyKey, "stripe:pi:%")));
    expect(credits).toHaveLength(1);
  });

  it("a declined card and one that needs authentication: their states, an alert each, no credit, no retry in the same crossing", async () => {
    for (const [last4, state, code] of [
      ["0002", "failed", "card_declined"],
      ["3155", "requires_action", "authentication_required"],
    ] as const) {
      const user = await withCard(6, last4);
      await setAutoTopup(db, user.accountId, on("5", "10"));
      await spend(user.accountId, 2, "c1");
      expect(await chargeDueAutoTopups(db, stripe)).toBe(1);
      expect((await rows(user.accountId))[0]).toMatchObject({ state, errorCode: code });
      expect(await balance(user.accountId)).toBe(4_000_000);
      expect(await alertKinds(user.accountId)).toEqual(["auto_topup_failed"]);
      await spend(user.accountId, 1, "c2");
      expect(await rows(user.accountId)).toHaveLength(1);
      expect((await autoTopupView(db, user.accountId, true)).recent[0]).toMatchObject({ state, errorCode: code });
    }
  });

  it("turned on below the threshold charges at once; off or without a card, nothing; a removed card stops it", async () => {
    const user = await withCard(3);
    await setAutoTopup(db, user.accountId, on("5", "10"));
    expect(await chargeDueAutoTopups(db, stripe)).toBe(1);
    expect(await balance(user.accountId)).toBe(13_000_000);
    await setAutoTopup(db, user.accountId, { enabled: false });
    await spend(user.accountId, 12, "c1");
    expect(await rows(user.accountId)).toHaveLength(1);

    const bare = await createUser(db, { email: `bare-${Date.now()}@example.test`, password: "password-123", via: "test" });
    if (!bare.ok) throw new Error("user not created");
    await expect(setAutoTopup(db, bare.value.accountId, on("5", "10"))).rejects.toMatchObject({ code: "conflict", message: "Save a card first." });
    expect(() => on("5", "1")).toThrow(/between \$5/);

    await setAutoTopup(db, user.accountId, on("5", "10"));
    await removeCard(db, stripe, user.accountId);
    expect(await autoTopupView(db, user.accountId, true)).toMatchObject({ card: null, enabled: false });
    await spend(user.accountId, 0.5, "c2");
    expect(await chargeDueAutoTopups(db, stripe)).toBe(0);
  });
});

describe("a card saved by a member who leaves (issue 32, item 5)", () => {
  /** A team organisation with $6, its owner, and a billing member who saved a card and turned auto top-up on. */
  async function teamCardOfBilling() {
    const [owner, saver] = await Promise.all([person("owner"), person("saver")]);
    const org = await createOrg(db, owner, "Team");
    await db.insert(memberships).values({ accountId: org.id, userId: saver.id, role: "billing" });
    await applyLedgerChange(db, { accountId: org.id, deltaMicroUsd: 6_000_000, kind: "admin_credit", idempotencyKey: `seed:${org.id}` });
    const { url } = await startCardSetup(db, stripe, { accountId: org.id, userId: saver.id, email: saver.email });
    const sessionId = url.split("/pay/")[1]!;
    fake.saveCard(sessionId);
    expect(await saveCardFromSession(db, stripe, sessionId, org.id)).toMatchObject({ status: "saved" });
    await setAutoTopup(db, org.id, on("5", "50"));
    return { org, owner, saver };
  }
  async function person(what: string) {
    const r = await createUser(db, { email: `${what}-${Date.now()}-${n++}@example.test`, password: "password-123", via: "test" });
    if (!r.ok) throw new Error("user not created");
    return r.value;
  }
  const pmOf = async (accountId: string) => (await db.select({ pm: accounts.autoTopupPaymentMethod }).from(accounts).where(eq(accounts.id, accountId)))[0]!.pm;

  it("leaving forgets the card, detaches it at Stripe and alerts the owners; the next crossing charges nothing", async () => {
    process.env.STRIPE_SECRET_KEY = "sk_test_fake";
    process.env.STRIPE_WEBHOOK_SECRET = "whsec_test_fake"; // card payments are on: key and webhook secret
    process.env.STRIPE_API_BASE = fake.url;
    resetEnvCache();
    const { org, saver } = await teamCardOfBilling();
    const pm = await pmOf(org.id);
    expect(pm).toMatch(/^pm_/);
    await removeMember(db, { id: saver.id, email: saver.email, accountId: org.id, orgRole: "billing" }, saver.id);
    expect(await pmOf(org.id)).toBeNull();
    expect(await autoTopupView(db, org.id, true)).toMatchObject({ card: null, enabled: false });
    expect(fake.requests.some((r) => r.method === "POST" && r.path === `/v1/payment_methods/${pm}/detach`)).toBe(true);
    expect(await alertKinds(org.id)).toEqual(["auto_topup_card_removed"]);
    await spend(org.id, 2, "after-leave");
    expect(await rows(org.id)).toHaveLength(0);
    expect(await chargeDueAutoTopups(db, stripe)).toBe(0);
    expect(intentsOf(org.id)).toHaveLength(0);
    expect(await balance(org.id)).toBe(4_000_000);
  });

  it("a crossing already due when the saver is gone is not charged: checked at charge time", async () => {
    const { org, saver } = await teamCardOfBilling();
    await spend(org.id, 2, "crossing");
    expect(await rows(org.id)).toHaveLength(1);
    // The membership goes by a path that never looked at the card (or the row was queued just before).
    await db.delete(memberships).where(and(eq(memberships.accountId, org.id), eq(memberships.userId, saver.id)));
    await chargeDueAutoTopups(db, stripe);
    expect(intentsOf(org.id)).toHaveLength(0);
    expect((await rows(org.id))[0]).toMatchObject({ state: "failed", errorCode: "card_owner_left" });
    expect(await pmOf(org.id)).toBeNull();
    expect(await balance(org.id)).toBe(4_000_000);
  });
});
