import { Suspense } from "react";
import { CheckoutSuccess } from "@/components/billing/checkout-result";
import { PageHeader } from "@/components/ui/page-header";

export const metadata = { title: "Payment · Generation Gateway" };

export default function Page() {
  return (
    <>
      <PageHeader title="Top-up" />
      <Suspense>
        <CheckoutSuccess />
      </Suspense>
    </>
  );
}
