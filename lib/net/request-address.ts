/**
 * The client address of a request that reached Next.js through the custom server. Next's
 * route handlers see headers only, so server.ts stamps the TCP peer into a header, with a
 * per-process token that a client cannot know: a client-written copy of that header is
 * ignored. (Under a bare `next start` there is no stamp and the address is "unknown".)
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { env } from "../env";
import { clientAddress } from "../trust-proxy";
import { processSingleton } from "../process-singleton";

export const PEER_HEADER = "x-gateway-peer";
const token = processSingleton("gateway.peerToken", () => randomBytes(18).toString("base64url"));

/** server.ts: replaces whatever the client sent under PEER_HEADER with the real peer. */
export function stampPeer(req: IncomingMessage): void {
  req.headers[PEER_HEADER] = `${token()} ${req.socket.remoteAddress ?? ""}`;
}

type HeaderBag = Headers | Record<string, unknown> | undefined;

function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const v = headers[name];
  return Array.isArray(v) ? v.map(String).join(",") : typeof v === "string" ? v : undefined;
}

/** The client address of a Next.js request (TRUST_PROXY applied), "unknown" without a stamp. */
export function requestClientAddress(headers: HeaderBag): string {
  const stamp = header(headers, PEER_HEADER);
  const space = stamp?.indexOf(" ") ?? -1;
  const peer = stamp && space > 0 && stamp.slice(0, space) === token() ? stamp.slice(space + 1) : undefined;
  return clientAddress(peer, header(headers, "x-forwarded-for"), env().TRUST_PROXY);
}
