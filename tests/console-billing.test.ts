/**
 * Stripe through the real server's routes: Checkout creation from the console, the webhook
 * route crediting once on the raw body, a bad signature refused with no credit, and the
 * success page confirming only the caller's own session.
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startFakeStripe, type FakeStripe } from "./fakes/stripe-api";
import { startTestServer, type TestServer } from "./support/server";

const SECRET = "whsec_console_route_test";
let server: TestServer;
let fake: FakeStripe;
const hook = { url: "", secret: SECRET };
const signer = new Stripe("sk_test_signer");

beforeAll(async () => {
  fake = await startFakeStripe({ webhook: hook });
  server = await startTestServer({ env: { STRIPE_SECRET_KEY: "sk_test_console", STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: fake.url } });
  hook.url = `${server.url}/api/stripe/webhook`;
  await signUp(server); // the admin
}, 180_000);

afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});

async function balance(s: Session): Promise<number> {
  return (await s.json("/api/console/me")).body.account.balanceMicroUsd;
}

describe("Stripe top-ups through the console routes", () => {
  it("validates the amount before asking Stripe", async () => {
    const u = await signUp(server);
    const before = fake.requests.length;
    for (const amountCents of [499, 1_000_001]) {
      const r = await u.json("/api/console/billing/checkout", { method: "POST", body: { amountCents } });
      expect(r.status).toBe(400);
      expect(r.body.error.field).toBe("amount");
    }
    expect(fake.requests.length).toBe(before);
  });

  it("creates a session, credits once on duplicate webhooks, and the success page agrees", async () => {
    const u = await signUp(server);
    const me = (await u.json("/api/console/me")).body.user;
    const r = await u.json("/api/console/billing/checkout", { method: "POST", body: { amountCents: 2_500 } });
    expect(r.status).toBe(200);
    expect(r.body.url).toBe(`${fake.url}/pay/${r.body.id}`);
    expect(fake.requests.at(-1)!.body).toMatchObject({ client_reference_id: me.accountId, metadata: { accountId: me.accountId } });
    fake.pay(r.body.id);
    const event = fake.event("checkout.session.completed", fake.sessions.get(r.body.id)!);
    const first = await fake.deliver(event);
    const second = await fake.deliver(event);
    expect([first.status, second.status]).toEqual([200, 200]);
    const other = await fake.deliver(fake.event("checkout.session.async_payment_succeeded", fake.sessions.get(r.body.id)!));
    expect(other.status).toBe(200);
    expect(await balance(u)).toBe(25_000_000);
    const status = await u.json(`/api/console/billing/checkout/${r.body.id}`);
    expect(status.body).toMatchObject({ state: "paid", amountMicroUsd: 25_000_000, balanceMicroUsd: 25_000_000 });
    const ledger = (await u.json("/api/console/ledger")).body.items;
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ kind: "topup", deltaMicroUsd: 25_000_000 });
  });

  it("refuses a bad signature with 400 and credits nothing", async () => {
    const u = await signUp(server);
    const r = await u.json("/api/console/billing/checkout", { method: "POST", body: { amountCents: 1_000 } });
    fake.pay(r.body.id);
    const event = fake.event("checkout.session.completed", fake.sessions.get(r.body.id)!);
    const bad = await fake.deliver(event, "whsec_not_ours");
    expect(bad.status).toBe(400);
    const payload = JSON.stringify(event);
    const tampered = await fetch(hook.url, {
      method: "POST",
      headers: { "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret: SECRET }) },
      body: payload.replace("1000", "9999"),
    });
    expect(tampered.status).toBe(400);
    const future = await fetch(hook.url, {
      method: "POST",
      headers: { "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: Math.floor(Date.now() / 1000) + 600 }) },
      body: payload,
    });
    expect(future.status).toBe(400);
    expect(await balance(u)).toBe(0);
  });

  it("acknowledges (200) an event for a Checkout session Stripe does not know, instead of a 500 Stripe retries for days", async () => {
    for (const type of ["checkout.session.completed", "checkout.session.async_payment_succeeded"]) {
      const before = fake.requests.length;
      const r = await fake.deliver(fake.event(type, { id: `cs_test_unknown_${type.length}`, object: "checkout.session", mode: "payment" }));
      expect(r.status, type).toBe(200);
      expect(await r.json(), type).toMatchObject({ received: true, reason: "unknown to Stripe" });
      // Stripe was asked (and answered 404): the event was checked, not trusted.
      expect(fake.requests.slice(before).some((q) => q.path.startsWith("/v1/checkout/sessions/cs_test_unknown"))).toBe(true);
    }
  });

  it("shows a session only to its own account on the success page", async () => {
    const owner = await signUp(server);
    const intruder = await signUp(server);
    const r = await owner.json("/api/console/billing/checkout", { method: "POST", body: { amountCents: 1_500 } });
    fake.pay(r.body.id);
    const peek = await intruder.json(`/api/console/billing/checkout/${r.body.id}`);
    expect(peek.status).toBe(404);
    expect(await balance(intruder)).toBe(0);
    // The owner's redirect fulfils even before the webhook arrives (Stripe's guidance).
    const mine = await owner.json(`/api/console/billing/checkout/${r.body.id}`);
    expect(mine.body.state).toBe("paid");
    expect(await balance(owner)).toBe(15_000_000);
  });
});
