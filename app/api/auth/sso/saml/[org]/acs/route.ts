// The SAML assertion consumer service: the IdP's HTTP-POST answer (lib/sso/saml.ts).
import { getDb } from "@/db/client";
import { finishSaml } from "@/lib/sso/saml";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request, ctx: { params: Promise<{ org: string }> }) {
  const { org } = await ctx.params;
  const form = await req.formData().catch(() => new FormData());
  return finishSaml(await getDb(), org, form, req.headers.get("cookie"));
}
