import { z } from "zod";
import { getDb } from "@/db/client";
import { verifyEmail } from "@/lib/auth/email-links";
import { publicRoute } from "@/lib/console/public-route";
import { readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const schema = z.object({ token: z.string().max(200) });

/** Marks an address verified with the token of a verification link. */
export const POST = publicRoute(async ({ req, ip }) => {
  const { token } = await readBody(req, schema);
  return verifyEmail(await getDb(), token, ip);
});
