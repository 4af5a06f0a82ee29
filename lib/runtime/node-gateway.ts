/**
 * The public API on node:http's request and response: what server.ts runs for /v1, /v1beta and
 * /upload, and what the Next-only mount runs too (pages/api/gateway, decision 0078), so both
 * read the client's body and write the reply the same way, without web streams in between.
 */
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../env";
import { handleGatewayRequest } from "../gateway/entry";
import type { GatewayResponse } from "../gateway/http";
import { logger } from "../logger";
import { ClientSignal } from "../net/client-signal";
import { API_SECURITY_HEADERS } from "../security-headers";

const URL_BASE = "http://localhost";
const SECURITY_HEADER_NAMES = Object.keys(API_SECURITY_HEADERS);

/**
 * Writes a GatewayResponse to node:http, flushing each streamed chunk as it comes. The API's
 * security headers join the reply's own (which win) in the one writeHead: a header set with
 * setHeader before it sends writeHead down node's slow path, which stores every header twice.
 */
export async function writeGatewayResponse(res: ServerResponse, r: GatewayResponse): Promise<void> {
  const headers = r.headers;
  for (const k of SECURITY_HEADER_NAMES) if (headers[k] === undefined) headers[k] = API_SECURITY_HEADERS[k]!;
  res.writeHead(r.status, headers);
  const body = r.body;
  if (body === null) return void res.end();
  if (typeof body === "string" || body instanceof Uint8Array) return void res.end(body);
  // Under Next the reply may pass through its gzip middleware, which holds what it is given
  // until told to flush: a streamed event must leave when written (a no-op elsewhere).
  const flush = (res as { flush?: () => void }).flush?.bind(res);
  try {
    let first = true;
    for await (const chunk of body) {
      if (res.destroyed) break; // client gone: leaving the loop ends the generator (upstream aborted)
      const flowing = res.write(chunk);
      flush?.();
      // node holds a reply's writes until the next tick, and the chunks the upstream's read also
      // brought are rendered before it: the first one (the head and the first event) goes now.
      if (first) {
        first = false;
        res.socket?.uncork();
      }
      if (!flowing) await once(res, "drain");
    }
  } catch (err) {
    if (!res.destroyed) logger().error({ err }, "stream failed after the response began");
  }
  res.end();
}

/** One API request: the client's signal from the response's close, the body as node reads it. */
export async function serveApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const signal = new ClientSignal(); // not an AbortController: lib/net/client-signal.ts says why
  res.on("close", () => {
    if (!res.writableFinished) signal.abort();
  });
  const r = await handleGatewayRequest({
    method: req.method ?? "GET",
    url: new URL(req.url ?? "/", URL_BASE),
    headers: req.headers,
    body: req.method === "GET" || req.method === "HEAD" ? null : req,
    signal,
    remoteAddress: req.socket.remoteAddress,
  }, { settleAfterReply: !env().serverless }); // serverless: nothing may outlive the invocation (decision 0042)
  // An oversized body is left unread; node:http discards the rest after the response, so the
  // client finishes sending and reads its 413 instead of meeting a reset connection.
  await writeGatewayResponse(res, r);
}
