/**
 * The gateway in Next.js, for deployments without the custom server (Vercel): the public API as
 * a Pages API route (pages/api/gateway, where next.config.ts rewrites /v1, /v1beta and /upload)
 * that runs server.ts's own node:http path (decision 0078), and the cron tick as a route handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ensurePrepared } from "./prepare";
import { cronTick, refuseCronCaller } from "./cron";
import { serveApi, writeGatewayResponse } from "./node-gateway";
import { EnvError, env } from "../env";
import { logger } from "../logger";
import { API_SECURITY_HEADERS } from "../security-headers";

/**
 * Prepares the process, or says why it cannot serve: a mount whose database cannot open would
 * otherwise leave Next to answer 500 with an empty body.
 */
async function unprepared(): Promise<string | null> {
  try {
    if (env().serverless && !env().DATABASE_URL) {
      return "DATABASE_URL is not set. A serverless deployment needs PostgreSQL: the embedded database needs one long-lived process and a writable disk (docs/deploy.md).";
    }
    await ensurePrepared();
    return null;
  } catch (err) {
    if (err instanceof EnvError) return err.message;
    logger().error({ err }, "the gateway could not prepare its database");
    return "The gateway cannot reach its database; the server log says why.";
  }
}

const unavailable = (message: string) => ({ error: { type: "server_error", code: "gateway_unavailable", message } });

/** Where next.config.ts rewrites the public API to. */
const MOUNT = "/api/gateway/";

/**
 * pages/api/gateway's handler. `next start` and Vercel keep the client's own URL (/v1/…) in
 * `req.url`; a host whose rewrite hands over the destination instead gets the prefix removed.
 */
export async function nextGatewayHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url?.startsWith(MOUNT)) req.url = req.url.slice(MOUNT.length - 1);
  try {
    const refused = await unprepared();
    if (refused) return await writeGatewayResponse(res, { status: 503, headers: { "content-type": "application/json" }, body: JSON.stringify(unavailable(refused)) });
    await serveApi(req, res);
  } catch (err) {
    // As server.ts does: Next's own answer would be a text/plain 500.
    logger().error({ err }, "request handler failed");
    if (!res.headersSent) res.writeHead(500, { ...API_SECURITY_HEADERS, "content-type": "application/json" });
    res.end();
  }
}

export async function nextCronHandler(request: Request): Promise<Response> {
  // Prepared first, as for /v1 (a bad environment answers its JSON error here, not a bare 500).
  const refused = await unprepared();
  if (refused) return Response.json(unavailable(refused), { status: 503 });
  const r = refuseCronCaller(request.headers.get("authorization")) ?? (await cronTick());
  return Response.json(r.body, { status: r.status });
}
