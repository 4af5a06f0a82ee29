import { BatchesPage } from "@/components/batches/batches-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as batches } from "@/app/api/console/batches/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "Batches · Generation Gateway" };

export default function Page() {
  return (
    <Prefetch queries={[{ key: ["batches"], get: batches, path: "/api/console/batches", infinite: { firstPageParam: "" } }]}>
      <BatchesPage />
    </Prefetch>
  );
}
