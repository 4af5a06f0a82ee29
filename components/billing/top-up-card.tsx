"use client";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { useAdminMutation, useCheckout, useMe } from "../console/hooks";
import type { Billing } from "../console/types";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, TextField } from "../ui/field";
import { CopyButton } from "../ui/copy-button";
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

  if (!billing.stripeEnabled) return <NoCardPayments />;

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

/**
 * No card payments on this gateway. An admin (on a fresh install, the first user) credits
 * accounts here or in Admin → Users; everyone else is told who can, and the CLI line for
 * operators, copyable, with what it needs.
 */
function NoCardPayments() {
  const me = useMe();
  const admin = me.data?.user.role === "admin";
  const cli = `npm run admin -- credit --email ${me.data?.user.email ?? "you@example.com"} --usd 25 --note "top-up"`;
  return (
    <Card>
      <CardHeader title="Add balance" description="Card payments are not enabled on this gateway." />
      <CardBody className="space-y-4 text-sm text-zinc-700">
        {admin ? (
          <>
            <CreditYourself userId={me.data!.user.id} />
            <p>
              To credit other people, use <Link href="/admin?tab=users" className="font-medium underline">Admin → Users</Link> (“Credit / debit” on their row).
            </p>
          </>
        ) : (
          <p>Balance is added by an administrator of this gateway: ask yours to credit your account.</p>
        )}
        <div className="space-y-2">
          <p className="text-zinc-600">
            Or on the server, in the gateway&apos;s folder, with the server&apos;s <code className="font-mono text-xs">DATABASE_URL</code> set (the same database it runs on):
          </p>
          <div className="flex min-w-0 items-start gap-2">
            <pre className="min-w-0 flex-1 whitespace-pre-wrap break-all rounded-md bg-zinc-950 p-3 text-xs text-zinc-100">
              <code>{cli}</code>
            </pre>
            <CopyButton value={cli} label="Copy" testId="copy-cli" />
          </div>
        </div>
        <p className="text-xs text-zinc-600">Operators: set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to enable Stripe Checkout top-ups.</p>
      </CardBody>
    </Card>
  );
}

function CreditYourself({ userId }: { userId: string }) {
  const [amount, setAmount] = useState("25");
  const [error, setError] = useState<string>();
  const [idem, setIdem] = useState(() => crypto.randomUUID().replace(/-/g, ""));
  const credit = useAdminMutation(
    (body: { direction: "credit"; usd: string; note: string; idempotencyKey: string }) => api(`/api/admin/users/${encodeURIComponent(userId)}/balance`, { method: "POST", body }),
    ["admin", "billing", "ledger"],
  );
  async function submit(e: FormEvent) {
    e.preventDefault();
    const t = amount.trim().replace(/^\$/, "");
    if (!/^\d+(\.\d{1,6})?$/.test(t) || Number(t) <= 0) return setError("Enter a positive dollar amount such as 25 or 0.50.");
    setError(undefined);
    try {
      await credit.mutateAsync({ direction: "credit", usd: t, note: "admin self-credit", idempotencyKey: idem });
      setIdem(crypto.randomUUID().replace(/-/g, ""));
    } catch {
      /* shown below */
    }
  }
  return (
    <form onSubmit={submit} noValidate className="space-y-3" aria-label="Credit yourself">
      <p>You are an admin: add balance to your own account to try the API (a ledger row and an audit entry).</p>
      <FormError message={formError(credit.error, ["usd"])} />
      <div className="flex flex-wrap items-end gap-2">
        <div className="w-40">
          <TextField label="Amount (USD)" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} error={error ?? fieldError(credit.error, "usd")} />
        </div>
        <Button type="submit" loading={credit.isPending} data-testid="credit-yourself">
          Credit yourself
        </Button>
      </div>
      {credit.isSuccess && <p className="text-sm text-emerald-700" role="status">Added. Your balance is updated.</p>}
    </form>
  );
}
