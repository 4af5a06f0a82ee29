// The OIDC provider's redirect back (lib/sso/oidc.ts).
import { getDb } from "@/db/client";
import { finishOidc } from "@/lib/sso/oidc";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  return finishOidc(await getDb(), new URL(req.url), req.headers.get("cookie"));
}
