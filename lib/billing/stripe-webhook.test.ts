import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signatureTimestamp, verifyStripeEvent } from "./stripe-webhook";

const stripe = new Stripe("sk_test_unit");
const secret = "whsec_unit";
const payload = JSON.stringify({ id: "evt_1", object: "event", type: "ping", data: { object: {} } });
const now = 1_800_000_000_000;
const sign = (timestamp: number, s = secret) => stripe.webhooks.generateTestHeaderString({ payload, secret: s, timestamp });

describe("verifyStripeEvent", () => {
  it.each([
    ["now", 0, true],
    ["299 s old", -299, true],
    ["301 s old", -301, false],
    ["299 s ahead", 299, true],
    ["301 s ahead", 301, false],
    ["a day ahead", 86_400, false],
  ])("a signature %s → %s", (_label, offset, ok) => {
    const r = verifyStripeEvent(stripe, { rawBody: payload, signature: sign(now / 1000 + offset), secret, now });
    expect(r.ok).toBe(ok);
  });

  it("accepts any one valid v1 among several (secret rotation) and refuses other secrets", () => {
    const t = now / 1000;
    const good = sign(t).split(",").find((p) => p.startsWith("v1="))!;
    const other = sign(t, "whsec_old").split(",").find((p) => p.startsWith("v1="))!;
    expect(verifyStripeEvent(stripe, { rawBody: payload, signature: `t=${t},${other},${good}`, secret, now }).ok).toBe(true);
    expect(verifyStripeEvent(stripe, { rawBody: payload, signature: `t=${t},${other}`, secret, now }).ok).toBe(false);
  });

  it("reads t= and refuses headers without one", () => {
    expect(signatureTimestamp("t=123,v1=ab")).toBe(123);
    expect(signatureTimestamp("v1=ab")).toBeNull();
    expect(verifyStripeEvent(stripe, { rawBody: payload, signature: "v1=ab", secret, now }).ok).toBe(false);
  });
});
