import { DocsPage } from "@/components/docs/docs-page";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";
export const metadata = { title: "Docs · Generation Gateway" };

export default function Page() {
  return <DocsPage baseUrl={env().publicBaseUrl} />;
}
