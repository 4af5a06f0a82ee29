import { cookies } from "next/headers";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { AdminPage } from "@/components/admin/admin-page";
import { Prefetch, type PrefetchQuery } from "@/components/console/prefetch";
import { GET as users } from "@/app/api/admin/users/route";
import { userFromCookies } from "@/lib/auth/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · Generation Gateway" };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const jar = await cookies();
  const user = await userFromCookies(jar.getAll().map((c) => `${c.name}=${c.value}`).join("; "));
  // Non-admins see a 404, not a page that then fails on every request.
  if (user?.role !== "admin") notFound();
  // The default tab (users) is rendered with its data; the others load behind a skeleton.
  const tab = (await searchParams).tab;
  const queries: PrefetchQuery[] = !tab || tab === "users" ? [{ key: ["admin", "users", "", 0], get: users, path: "/api/admin/users?q=&offset=0" }] : [];
  return (
    <Prefetch queries={queries}>
      <Suspense>
        <AdminPage />
      </Suspense>
    </Prefetch>
  );
}
