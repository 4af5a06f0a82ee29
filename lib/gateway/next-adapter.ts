/**
 * The gateway entry as Next.js route handlers (app/v1, app/v1beta), for deployments without the
 * custom server (Vercel). Slower than server.ts's direct path, same behaviour.
 */
import { ensurePrepared } from "../runtime/prepare";
import { handleGatewayRequest } from "./entry";
import type { GatewayBody } from "./http";

const encoder = new TextEncoder();

function toWebBody(body: GatewayBody): BodyInit | null {
  if (body === null || typeof body === "string") return body;
  if (body instanceof Uint8Array) return body as unknown as BodyInit;
  const it = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel() {
      await it.return?.();
    },
  });
}

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
