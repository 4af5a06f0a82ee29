import { Suspense } from "react";
import { BillingPage } from "@/components/billing/billing-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as billing } from "@/app/api/console/billing/route";
import { GET as ledger } from "@/app/api/console/ledger/route";
import { GET as storage } from "@/app/api/console/billing/responses-storage/route";
import { GET as autoTopup } from "@/app/api/console/billing/auto-topup/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "Billing · Generation Gateway" };

export default function Page() {
  return (
    <Prefetch
      queries={[
        { key: ["billing"], get: billing, path: "/api/console/billing" },
        { key: ["ledger"], get: ledger, path: "/api/console/ledger", infinite: { firstPageParam: 0 } },
        { key: ["responses-storage"], get: storage, path: "/api/console/billing/responses-storage" },
        { key: ["auto-topup"], get: autoTopup, path: "/api/console/billing/auto-topup" },
      ]}
    >
      <Suspense>
        <BillingPage />
      </Suspense>
    </Prefetch>
  );
}
