/**
 * The running server's local admin endpoint, used by the admin CLI when the server holds the
 * embedded PGlite database. Loopback only, and guarded by a secret only readable from DATA_DIR.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getDb } from "../../db/client";
import { runAdminCommand } from "../admin/commands";
import { textSettlementsIdle } from "../billing/text-settle-batch";
import { dataDirSecret, safeEqual } from "../crypto";
import { logger } from "../logger";

export const ADMIN_PATH = "/_internal/admin";
export const ADMIN_SECRET_FILE = "admin.secret";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export async function handleAdminRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const presented = req.headers["x-admin-secret"];
  if (
    req.method !== "POST" ||
    !LOOPBACK.has(req.socket.remoteAddress ?? "") ||
    typeof presented !== "string" ||
    !safeEqual(presented, dataDirSecret(ADMIN_SECRET_FILE))
  ) {
    return send(404, { error: { message: "Not found.", type: "not_found", code: "not_found" } });
  }
  let raw = "";
  for await (const chunk of req) {
    raw += chunk;
    if (raw.length > 64 * 1024) return send(413, { error: "too large" });
  }
  let argv: unknown;
  try {
    argv = (JSON.parse(raw) as { argv?: unknown }).argv;
  } catch {
    return send(400, { error: "bad json" });
  }
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) return send(400, { error: "argv must be strings" });
  try {
    // Replies to API requests may go out just before their settlements commit: the CLI reads
    // the books after them (`balance` right after a request shows its charge).
    await textSettlementsIdle();
    send(200, await runAdminCommand(await getDb(), argv));
  } catch (err) {
    logger().error({ err }, "admin command failed");
    send(200, { exitCode: 1, stdout: [], stderr: ["error: internal error (see the server log)"] });
  }
}
