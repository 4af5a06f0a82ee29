import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/console/shell";
import { Providers } from "@/components/console/providers";
import { Prefetch } from "@/components/console/prefetch";
import { GET as me } from "@/app/api/console/me/route";
import { userFromCookies } from "@/lib/auth/session";

export const dynamic = "force-dynamic";

/** Every console page: signed in (checked against the database), else to the sign-in page. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const jar = await cookies();
  const header = jar
    .getAll()
    .map((c) => `${c.name}=${c.value}`)
    .join("; ");
  const user = await userFromCookies(header);
  if (!user) redirect("/signin");
  return (
    <Providers>
      <Prefetch queries={[{ key: ["me"], get: me, path: "/api/console/me" }]}>
        <ConsoleShell user={user}>{children}</ConsoleShell>
      </Prefetch>
    </Providers>
  );
}
