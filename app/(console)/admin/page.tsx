import { cookies } from "next/headers";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { AdminPage } from "@/components/admin/admin-page";
import { userFromCookies } from "@/lib/auth/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · Generation Gateway" };

export default async function Page() {
  const jar = await cookies();
  const user = await userFromCookies(jar.getAll().map((c) => `${c.name}=${c.value}`).join("; "));
  // Non-admins see a 404, not a page that then fails on every request.
  if (user?.role !== "admin") notFound();
  return (
    <Suspense>
      <AdminPage />
    </Suspense>
  );
}
