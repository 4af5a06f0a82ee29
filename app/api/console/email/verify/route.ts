import { getDb } from "@/db/client";
import { sendVerification } from "@/lib/auth/email-links";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Emails the signed-in user a verification link (counted like every email a user sends: lib/auth/rate-limit.ts). */
export const POST = consoleRoute(async ({ user }) => sendVerification(await getDb(), user.id));
