// Our SAML service provider metadata for the organisation's IdP (entity id = this URL).
import { samlMetadata } from "@/lib/sso/saml";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ org: string }> }) {
  const { org } = await ctx.params;
  if (!/^acct_[A-Za-z0-9]{1,64}$/.test(org)) return new Response("Not found", { status: 404 });
  return new Response(await samlMetadata(org), { headers: { "content-type": "application/samlmetadata+xml" } });
}
