import { WebhooksPage } from "@/components/webhooks/webhooks-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as webhooks } from "@/app/api/console/webhooks/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "Webhooks · Generation Gateway" };

export default function Page() {
  return (
    <Prefetch queries={[{ key: ["webhooks"], get: webhooks, path: "/api/console/webhooks", infinite: { firstPageParam: "" } }]}>
      <WebhooksPage />
    </Prefetch>
  );
}
