/** "Card payments are on" has one meaning: the secret key and the webhook secret, both. */
import { afterEach, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import * as stripeModule from "./stripe";

const saved = { key: process.env.STRIPE_SECRET_KEY, secret: process.env.STRIPE_WEBHOOK_SECRET };
function set(key: string | undefined, secret: string | undefined) {
  for (const [name, value] of [["STRIPE_SECRET_KEY", key], ["STRIPE_WEBHOOK_SECRET", secret]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvCache();
}
afterEach(() => set(saved.key, saved.secret));

it("gives a Stripe client only when both the key and the webhook secret are set", () => {
  set("sk_test_only_key", undefined);
  expect(stripeModule.stripePayments()).toBeNull(); // the console says card top-ups are off: nothing may charge a card
  set(undefined, "whsec_x");
  expect(stripeModule.stripePayments()).toBeNull();
  set("sk_test_both", "whsec_x");
  expect(stripeModule.stripePayments()).not.toBeNull();
});

it("exports no other way to reach Stripe (the worker once charged saved cards with the key alone)", () => {
  expect(Object.keys(stripeModule)).not.toContain("stripeClient");
  expect(Object.keys(stripeModule)).not.toContain("stripeEnabled");
});
