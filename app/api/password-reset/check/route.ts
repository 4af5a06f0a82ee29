import { z } from "zod";
import { getDb } from "@/db/client";
import { checkResetLink } from "@/lib/auth/email-links";
import { publicRoute } from "@/lib/console/public-route";
import { readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const schema = z.object({ token: z.string().max(200) });

/** Whether a reset link still works (400 naming `token` when not); the link is not spent. POST keeps the token out of access logs. */
export const POST = publicRoute(async ({ req, ip }) => {
  const { token } = await readBody(req, schema);
  return checkResetLink(await getDb(), token, ip);
});
