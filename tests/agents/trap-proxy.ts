/**
 * A proxy that refuses everything and records where the CLIs tried to go: given to them as
 * HTTP(S)_PROXY / ALL_PROXY (loopback excluded by NO_PROXY), so any attempt to leave the machine
 * (update checks, telemetry, model lists, plugin installs) shows up here instead of hanging on DNS.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TrapProxy {
  url: string;
  /** host:port (CONNECT) or absolute URL (plain HTTP) of every attempt, in order. */
  attempts: string[];
  close(): Promise<void>;
}

export async function startTrapProxy(): Promise<TrapProxy> {
  const attempts: string[] = [];
  const server = http.createServer((req, res) => {
    attempts.push(req.url ?? "");
    res.writeHead(403).end();
  });
  server.on("connect", (req, socket) => {
    attempts.push(req.url ?? "");
    socket.on("error", () => {});
    socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
  });
  server.on("clientError", (_e, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    attempts,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
