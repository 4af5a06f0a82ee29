/**
 * The framework-agnostic request/response pair of the public API. Both mounts, the custom
 * Node server (server.ts) and Next's (pages/api/gateway), adapt node:http to these in
 * lib/runtime/node-gateway.ts, so the gateway never knows which one is serving it.
 */

export interface GatewayRequest {
  method: string;
  /** Absolute URL; only path and query matter to routing. */
  url: URL;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, read lazily and with a size limit by lib/gateway/body.ts. */
  body: AsyncIterable<Uint8Array> | null;
  /** Aborted when the client goes away: pass it to upstream calls. */
  signal: AbortSignal;
  remoteAddress?: string;
}

/** A streamed body yields chunks that are written and flushed one by one (SSE events). */
export type GatewayBody = string | Uint8Array | AsyncIterable<string | Uint8Array> | null;

export interface GatewayResponse {
  status: number;
  headers: Record<string, string>;
  body: GatewayBody;
}

export function header(req: GatewayRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): GatewayResponse {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(value),
  };
}
