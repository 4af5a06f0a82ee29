import { getDb } from "@/db/client";
import { consoleRoute } from "@/lib/console/route";
import { resend } from "@/lib/console/webhooks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = consoleRoute(async ({ user, params }) => ({ delivery: await resend(await getDb(), user.accountId, params.id!) }), { can: "webhooks" });
