// The instance-wide OIDC provider's button (OIDC_ISSUER); organisations' providers start from /api/auth/sso/start.
import { getDb } from "@/db/client";
import { startOidc } from "@/lib/sso/oidc";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  return startOidc(await getDb(), null, new URL(req.url).searchParams.get("callbackUrl"));
}
