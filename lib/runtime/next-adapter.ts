/**
 * The gateway entry as Next.js route handlers (app/v1, app/v1beta), for deployments without the
 * custom server (Vercel). Slower than server.ts's direct path, same behaviour.
 */
import { ensurePrepared } from "./prepare";
import { handleGatewayRequest } from "../gateway/entry";
import { toWebBody } from "../gateway/web-body";

export async function nextGatewayHandler(request: Request): Promise<Response> {
  await ensurePrepared();
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
