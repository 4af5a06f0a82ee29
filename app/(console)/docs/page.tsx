import { DocsPage } from "@/components/docs/docs-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as models } from "@/app/api/console/models/route";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";
export const metadata = { title: "Docs · Generation Gateway" };

export default function Page() {
  return (
    <Prefetch queries={[{ key: ["models"], get: models, path: "/api/console/models" }]}>
      <DocsPage baseUrl={env().publicBaseUrl} />
    </Prefetch>
  );
}
