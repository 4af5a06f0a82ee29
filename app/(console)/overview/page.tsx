import { Suspense } from "react";
import { OverviewPage } from "@/components/overview/overview-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as overview } from "@/app/api/console/overview/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "Overview · Generation Gateway" };

export default function Page() {
  return (
    <Prefetch queries={[{ key: ["overview"], get: overview, path: "/api/console/overview" }]}>
      <Suspense>
        <OverviewPage />
      </Suspense>
    </Prefetch>
  );
}
