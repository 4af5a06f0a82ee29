import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-card";

export const metadata = { title: "Not found · Generation Gateway" };

/** Every unknown console page (and pages someone may not see, such as Admin for a user). */
export default function NotFound() {
  return (
    <AuthCard title="Page not found" subtitle="There is nothing at this address, or it is not yours to see.">
      <div className="flex flex-wrap gap-2">
        <Link href="/overview" className="inline-flex h-9 items-center rounded-md bg-zinc-900 px-4 text-sm font-medium text-white hover:bg-zinc-700">
          Go to the console
        </Link>
        <Link href="/docs" className="inline-flex h-9 items-center rounded-md border border-zinc-300 bg-white px-4 text-sm font-medium text-zinc-800 hover:bg-zinc-50">
          Docs
        </Link>
      </div>
    </AuthCard>
  );
}
