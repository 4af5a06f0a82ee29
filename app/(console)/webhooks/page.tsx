import { WebhooksPage } from "@/components/webhooks/webhooks-page";

export const metadata = { title: "Webhooks · Generation Gateway" };

export default function Page() {
  return <WebhooksPage />;
}
