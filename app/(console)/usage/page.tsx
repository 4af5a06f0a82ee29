import { Suspense } from "react";
import { UsagePage } from "@/components/usage/usage-page";

export const metadata = { title: "Usage · Generation Gateway" };

export default function Page() {
  return (
    <Suspense>
      <UsagePage />
    </Suspense>
  );
}
