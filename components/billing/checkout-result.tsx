"use client";
import Link from "next/link";
import { useSearchParams } from "@/components/navigation";
import { usd } from "../console/format";
import { useCheckoutStatus } from "../console/hooks";
import { Spinner } from "../ui/button";
import { Card, CardBody } from "../ui/card";

export function CheckoutSuccess() {
  const sessionId = useSearchParams().get("session_id");
  const q = useCheckoutStatus(sessionId);
  return (
    <Card className="mx-auto max-w-lg">
      <CardBody className="space-y-4 py-8 text-center">
        {!sessionId ? (
          <p className="text-sm text-zinc-600">This page needs a checkout session. Start a top-up from Billing.</p>
        ) : q.isPending || q.data?.state === "pending" ? (
          <div role="status" className="flex flex-col items-center gap-3">
            <Spinner className="h-6 w-6 text-zinc-500" />
            <p className="text-base font-medium text-zinc-900">Confirming your payment…</p>
            <p className="text-sm text-zinc-500">Stripe is confirming the payment. Your balance updates the moment it does; you can leave this page.</p>
          </div>
        ) : q.isError ? (
          <div role="alert">
            <p className="text-base font-medium text-zinc-900">We could not confirm the payment yet</p>
            <p className="mt-1 text-sm text-zinc-500">{q.error instanceof Error ? q.error.message : ""}</p>
          </div>
        ) : q.data?.state === "paid" ? (
          <div data-testid="checkout-paid">
            <div className="mx-auto mb-3 grid h-10 w-10 place-items-center rounded-full bg-emerald-100 text-emerald-700" aria-hidden="true">
              ✓
            </div>
            <p className="text-base font-medium text-zinc-900">Payment received{q.data.amountMicroUsd ? `: ${usd(q.data.amountMicroUsd)} added` : ""}</p>
            <p className="mt-1 text-sm text-zinc-500">
              Your balance is now <span className="font-medium tabular-nums text-zinc-900">{usd(q.data.balanceMicroUsd)}</span>.
            </p>
          </div>
        ) : (
          <p className="text-sm text-zinc-600">This payment did not complete, and nothing was charged to your balance.</p>
        )}
        <Link href="/billing" className="inline-block text-sm font-medium text-zinc-900 underline">
          Back to Billing
        </Link>
      </CardBody>
    </Card>
  );
}
