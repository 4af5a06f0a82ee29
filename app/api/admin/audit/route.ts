import { getDb } from "@/db/client";
import { listAudit } from "@/lib/console/audit";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = consoleRoute(
  async ({ url }) => listAudit(await getDb(), { before: Number(url.searchParams.get("before")) || undefined }),
  { admin: true },
);
