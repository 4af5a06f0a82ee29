import { getDb } from "@/db/client";
import { findUserById } from "@/lib/auth/users";
import { consoleRoute } from "@/lib/console/route";
import { emailAvailable } from "@/lib/email";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The signed-in user's address, whether it is verified, and whether this gateway sends email. */
export const GET = consoleRoute(async ({ user }) => {
  const row = await findUserById(await getDb(), user.id);
  return { email: user.email, verified: Boolean(row?.emailVerified), verifiedAt: row?.emailVerified ?? null, emailAvailable: emailAvailable() };
});
