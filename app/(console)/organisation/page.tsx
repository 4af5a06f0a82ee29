import { Suspense } from "react";
import { OrganisationPage } from "@/components/organisation/organisation-page";

export const metadata = { title: "Organisation · Generation Gateway" };

export default function Page() {
  return (
    <Suspense>
      <OrganisationPage />
    </Suspense>
  );
}
