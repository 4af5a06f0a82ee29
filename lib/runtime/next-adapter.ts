/**
 * The gateway entry as Next.js route handlers (app/v1, app/v1beta, app/api/cron/tick), for
 * deployments without the custom server (Vercel). Slower than server.ts's direct path, same
 * behaviour.
 */
import { ensurePrepared } from "./prepare";
import { cronTick, refuseCronCaller } from "./cron";
import { EnvError, env } from "../env";
import { handleGatewayRequest } from "../gateway/entry";
import { toWebBody } from "../gateway/web-body";
import { logger } from "../logger";

/**
 * Prepares the process, or answers why it cannot serve: a mount whose database cannot open would
 * otherwise leave Next to answer 500 with an empty body.
 */
async function unprepared(): Promise<Response | null> {
  try {
    if (env().serverless && !env().DATABASE_URL) {
      return unavailable("DATABASE_URL is not set. A serverless deployment needs PostgreSQL: the embedded database needs one long-lived process and a writable disk (docs/deploy.md).");
    }
    await ensurePrepared();
    return null;
  } catch (err) {
    if (err instanceof EnvError) return unavailable(err.message);
    logger().error({ err }, "the gateway could not prepare its database");
    return unavailable("The gateway cannot reach its database; the server log says why.");
  }
}

function unavailable(message: string): Response {
  return Response.json({ error: { type: "server_error", code: "gateway_unavailable", message } }, { status: 503 });
}

export async function nextGatewayHandler(request: Request): Promise<Response> {
  const refused = await unprepared();
  if (refused) return refused;
  const headers: Record<string, string> = {};
  request.headers.forEach((v, k) => (headers[k] = v));
  const r = await handleGatewayRequest({
    method: request.method,
    url: new URL(request.url),
    headers,
    body: request.body ? (request.body as unknown as AsyncIterable<Uint8Array>) : null,
    signal: request.signal,
  });
  return new Response(toWebBody(r.body), { status: r.status, headers: r.headers });
}

export async function nextCronHandler(request: Request): Promise<Response> {
  // Prepared first, as for /v1 (a bad environment answers its JSON error here, not a bare 500).
  const r = (await unprepared()) ?? refuseCronCaller(request.headers.get("authorization")) ?? (await cronTick());
  return r instanceof Response ? r : Response.json(r.body, { status: r.status });
}
