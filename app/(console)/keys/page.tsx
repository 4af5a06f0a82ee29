import { KeysPage } from "@/components/keys/keys-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as keys } from "@/app/api/console/keys/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "API Keys · Generation Gateway" };

export default function Page() {
  return (
    <Prefetch queries={[{ key: ["keys"], get: keys, path: "/api/console/keys" }]}>
      <KeysPage />
    </Prefetch>
  );
}
