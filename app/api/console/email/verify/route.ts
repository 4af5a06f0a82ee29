import { getDb } from "@/db/client";
import { sendVerification } from "@/lib/auth/email-links";
import { consoleRoute } from "@/lib/console/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Emails the signed-in user a verification link (5 an hour). */
export const POST = consoleRoute(async ({ user }) => sendVerification(await getDb(), user.id));
