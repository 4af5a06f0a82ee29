// "Sign in with SSO" by email address (lib/sso/start.ts).
import { getDb } from "@/db/client";
import { startSsoForEmail } from "@/lib/sso/start";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const q = new URL(req.url).searchParams;
  return startSsoForEmail(await getDb(), q.get("email") ?? "", q.get("callbackUrl"));
}
