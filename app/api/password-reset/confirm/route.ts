import { z } from "zod";
import { getDb } from "@/db/client";
import { resetPassword } from "@/lib/auth/email-links";
import { PASSWORD_MAX_LENGTH } from "@/lib/auth/password";
import { publicRoute } from "@/lib/console/public-route";
import { readBody } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const schema = z.object({ token: z.string().max(200), password: z.string().max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`) });

/** Sets a new password with the token of a reset link; every session of the user ends. */
export const POST = publicRoute(async ({ req, ip }) => {
  const { token, password } = await readBody(req, schema);
  return resetPassword(await getDb(), token, password, ip);
});
