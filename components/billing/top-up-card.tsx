"use client";
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../console/api";
import { useCheckout, useMe } from "../console/hooks";
import type { Billing } from "../console/types";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, TextField } from "../ui/field";
import { cx } from "../ui/cx";

const dollars = (cents: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: cents % 100 ? 2 : 0 }).format(cents / 100);

/** "25", "25.5", "25.50" → cents, or null. */
export function parseDollars(text: string): number | null {
  const t = text.trim().replace(/^\$/, "").replace(/,/g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(t)) return null;
  const [w, f = ""] = t.split(".");
  return Number(w) * 100 + Number(f.padEnd(2, "0"));
}

export function TopUpCard({ billing }: { billing: Billing }) {
  const [preset, setPreset] = useState<number | null>(billing.presetsCents[1] ?? billing.presetsCents[0] ?? null);
  const [custom, setCustom] = useState("");
  const [error, setError] = useState<string>();
  const checkout = useCheckout();
  const me = useMe();

  if (!billing.stripeEnabled) {
    return (
      <Card>
        <CardHeader title="Add balance" description="Card payments are not enabled on this gateway." />
        <CardBody className="space-y-3 text-sm text-zinc-600">
          <p>Balance is added by an administrator. Ask yours to credit your account, from the Admin page or with the command line:</p>
          <pre className="overflow-x-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100">
            <code>{`npm run admin -- credit --email ${me.data?.user.email ?? "you@example.com"} --usd 25 --note "top-up"`}</code>
          </pre>
          <p className="text-xs text-zinc-500">Operators: set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to enable Stripe Checkout top-ups.</p>
        </CardBody>
      </Card>
    );
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const cents = custom ? parseDollars(custom) : preset;
    if (cents === null) return setError("Enter an amount in dollars, such as 25 or 12.50.");
    if (cents < billing.minCents) return setError(`The minimum top-up is ${dollars(billing.minCents)}.`);
    if (cents > billing.maxCents) return setError(`The maximum top-up is ${dollars(billing.maxCents)}.`);
    setError(undefined);
    try {
      const session = await checkout.mutateAsync(cents);
      window.location.assign(session.url);
    } catch {
      /* shown below */
    }
  }

  return (
    <Card>
      <CardHeader title="Add balance" description="Pay by card with Stripe. The balance updates as soon as Stripe confirms the payment." />
      <CardBody>
        <form onSubmit={submit} noValidate className="space-y-4">
          <FormError message={formError(checkout.error, ["amount"])} />
          <fieldset>
            <legend className="mb-2 text-sm font-medium text-zinc-800">Amount</legend>
            <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
              {billing.presetsCents.map((c) => (
                <button
                  key={c}
                  type="button"
                  aria-pressed={!custom && preset === c}
                  onClick={() => {
                    setPreset(c);
                    setCustom("");
                    setError(undefined);
                  }}
                  className={cx(
                    "rounded-md border px-3 py-2 text-sm font-medium tabular-nums transition-colors focus-visible:outline-2 focus-visible:outline-zinc-900",
                    !custom && preset === c ? "border-zinc-900 bg-zinc-900 text-white" : "border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50",
                  )}
                >
                  {dollars(c)}
                </button>
              ))}
            </div>
          </fieldset>
          <TextField
            label="Or another amount (USD)"
            name="amount"
            inputMode="decimal"
            placeholder={`${billing.minCents / 100} – ${(billing.maxCents / 100).toLocaleString("en-US")}`}
            value={custom}
            onChange={(e) => {
              setCustom(e.target.value);
              setError(undefined);
            }}
            error={error ?? fieldError(checkout.error, "amount")}
            hint={`Between ${dollars(billing.minCents)} and ${dollars(billing.maxCents)}.`}
          />
          <Button type="submit" loading={checkout.isPending} data-testid="checkout-button">
            Continue to payment
          </Button>
        </form>
      </CardBody>
    </Card>
  );
}
