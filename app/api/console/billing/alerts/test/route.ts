import { getDb } from "@/db/client";
import { sendTestAlert } from "@/lib/alerts/settings";
import { consoleRoute } from "@/lib/console/route";
import { wakeWorkers } from "@/lib/tasks/wake";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** "Send test alert": an alert of kind `test`, emailed and posted like a real one. */
export const POST = consoleRoute(
  async ({ user }) => {
    const r = await sendTestAlert(await getDb(), user.accountId, user.id);
    wakeWorkers();
    return r;
  },
  { can: "billing" },
);
