import { Suspense } from "react";
import { OverviewPage } from "@/components/overview/overview-page";

export const metadata = { title: "Overview · Generation Gateway" };

export default function Page() {
  return (
    <Suspense>
      <OverviewPage />
    </Suspense>
  );
}
