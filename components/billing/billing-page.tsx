"use client";
import { usd } from "../console/format";
import { useBilling } from "../console/hooks";
import { Stat } from "../ui/card";
import { Money } from "../ui/money";
import { PageHeader } from "../ui/page-header";
import { QueryState } from "../ui/states";
import { AlertsCard } from "./alerts-card";
import { AutoTopupCard } from "./auto-topup-card";
import { LedgerTable } from "./ledger-table";
import { RedeemCard } from "./redeem-card";
import { BillingDetailsCard, ReceiptsCard } from "./receipts-card";
import { ResponsesStorageCard } from "./responses-storage-card";
import { TopUpCard } from "./top-up-card";

export function BillingPage() {
  const billing = useBilling();
  return (
    <>
      <PageHeader title="Billing" description="Prepaid: requests are charged in USD against your balance. No subscription." />
      <div className="space-y-6">
        <QueryState query={billing}>
          {(b) => (
            <div className="grid min-w-0 gap-6 lg:grid-cols-3">
              <div className="space-y-4">
                <Stat label="Balance" value={<Money micro={b.balanceMicroUsd} />} testId="billing-balance" sub={b.heldMicroUsd ? `${usd(b.heldMicroUsd)} reserved by requests in flight` : "Available to spend"} />
                {b.balanceMicroUsd < 0 && <p className="text-sm text-red-600">Your balance is below zero after a refund or dispute. Paid requests get HTTP 402 until you top up.</p>}
              </div>
              <div className="min-w-0 lg:col-span-2">
                <TopUpCard billing={b} />
              </div>
            </div>
          )}
        </QueryState>
        <AutoTopupCard />
        <RedeemCard />
        <AlertsCard />
        <ReceiptsCard />
        <BillingDetailsCard />
        <ResponsesStorageCard />
        <LedgerTable />
      </div>
    </>
  );
}
