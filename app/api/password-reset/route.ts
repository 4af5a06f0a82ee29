import { z } from "zod";
import { getDb } from "@/db/client";
import { requestPasswordReset } from "@/lib/auth/email-links";
import { publicRoute } from "@/lib/console/public-route";
import { readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const schema = z.object({ email: z.string().trim().max(254).email("Enter a valid email address.") });

/** Emails a single-use reset link when the address has an account; answers the same either way. */
export const POST = publicRoute(async ({ req, ip }) => {
  const { email } = await readBody(req, schema);
  return requestPasswordReset(await getDb(), email, ip);
});
