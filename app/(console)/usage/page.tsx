import { Suspense } from "react";
import { UsagePage } from "@/components/usage/usage-page";
import { Prefetch } from "@/components/console/prefetch";
import { usageFilters, usageQuery } from "@/components/console/query-string";
import { GET as keys } from "@/app/api/console/keys/route";
import { GET as models } from "@/app/api/console/models/route";
import { GET as tasks } from "@/app/api/console/tasks/route";
import { GET as usage } from "@/app/api/console/usage/route";
import { GET as daily } from "@/app/api/console/usage/daily/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "Usage · Generation Gateway" };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const f = usageFilters((k) => {
    const v = sp[k];
    return Array.isArray(v) ? v[0] : v;
  });
  return (
    <Prefetch
      queries={[
        { key: ["usage", f], get: usage, path: `/api/console/usage${usageQuery(f)}`, infinite: { firstPageParam: 0 } },
        { key: ["usage", "daily", f], get: daily, path: `/api/console/usage/daily${usageQuery(f)}` },
        { key: ["keys"], get: keys, path: "/api/console/keys" },
        { key: ["models"], get: models, path: "/api/console/models" },
        { key: ["tasks"], get: tasks, path: "/api/console/tasks" },
      ]}
    >
      <Suspense>
        <UsagePage />
      </Suspense>
    </Prefetch>
  );
}
