import { BillingPage } from "@/components/billing/billing-page";

export const metadata = { title: "Billing · Generation Gateway" };

export default function Page() {
  return <BillingPage />;
}
