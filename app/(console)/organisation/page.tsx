import { Suspense } from "react";
import { OrganisationPage } from "@/components/organisation/organisation-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as current } from "@/app/api/console/orgs/current/route";
import { GET as members } from "@/app/api/console/orgs/members/route";
import { GET as invites } from "@/app/api/console/orgs/invites/route";
import { GET as budgets } from "@/app/api/console/orgs/budgets/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "Organisation · Generation Gateway" };

// Members and invites are asked only by roles that may see them; a refused route is left out.
export default function Page() {
  return (
    <Prefetch
      queries={[
        { key: ["org", "settings"], get: current, path: "/api/console/orgs/current" },
        { key: ["org", "members"], get: members, path: "/api/console/orgs/members" },
        { key: ["org", "invites"], get: invites, path: "/api/console/orgs/invites" },
        { key: ["org", "budgets"], get: budgets, path: "/api/console/orgs/budgets" },
      ]}
    >
      <Suspense>
        <OrganisationPage />
      </Suspense>
    </Prefetch>
  );
}
