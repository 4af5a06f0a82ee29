/**
 * The production HTTP server (`npm start`): one Node process where /v1/* and /v1beta/* go
 * straight to the framework-agnostic gateway entry and everything else to Next.js. The public
 * API thus never pays Next's per-request cost (docs/design.md, "Serving the public API").
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { EventEmitter, once } from "node:events";
import { closeDb, migrationsApplied } from "./db/client";
import { env } from "./lib/env";
import { drainGateway } from "./lib/gateway/entry";
import { closeRateLimiter, warmRateLimiter } from "./lib/gateway/rate-limit";
import { startInvalidationListener } from "./lib/invalidation";
import { sharedHealth, startUpstreamHealth } from "./lib/gateway/health";
import { logger } from "./lib/logger";
import { API_SECURITY_HEADERS } from "./lib/security-headers";
import { stampPeer } from "./lib/net/request-address";
import { metrics } from "./lib/metrics";
import { startTracing, stopTracing } from "./lib/tracing";
import { bearerToken, dataDirSecret, safeEqual } from "./lib/crypto";
import { serveApi, writeGatewayResponse } from "./lib/runtime/node-gateway";
import { ADMIN_PATH, ADMIN_SECRET_FILE, handleAdminRequest } from "./lib/runtime/admin-endpoint";
import { acquireInstance, updateInstance } from "./lib/runtime/instance-lock";
import { markRunning } from "./lib/runtime/build-state";
import { startJobs, type Jobs } from "./lib/runtime/jobs";
import { CRON_PATH, cronTick, refuseCronCaller } from "./lib/runtime/cron";
import { markPrepared, prepareDatabase } from "./lib/runtime/prepare";
import { admitSocket, isResponsesSocket, ResponsesSession } from "./lib/runtime/responses-socket";
import { isScimPath, serveScim } from "./lib/runtime/scim-node";
import { WebSocketServer } from "ws";

function isApiPath(url: string): boolean {
  // `/upload/…`: Google's resumable file uploads (lib/gateway/files/gemini.ts).
  return url.startsWith("/v1/") || url.startsWith("/v1beta/") || url === "/v1" || url === "/v1beta" || url.startsWith("/v1?") || url.startsWith("/v1beta?") || url.startsWith("/upload/v1");
}

// The errors scripts/start.ts reports as one line: taken from this module, so that `instanceof`
// holds when the server runs compiled (lib/runtime/server-bundle.ts) and start.ts does not.
export { ConfigError } from "./lib/config/load";
export { EnvError } from "./lib/env";
export { DataDirBusy } from "./lib/runtime/instance-lock";

/** A ServerResponse written straight to an upgrade request's socket, closed once answered. */
function httpOnSocket(req: IncomingMessage, socket: Socket): ServerResponse {
  const res = new http.ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.on("finish", () => {
    res.detachSocket(socket);
    socket.end();
  });
  for (const [k, v] of Object.entries(API_SECURITY_HEADERS)) res.setHeader(k, v);
  return res;
}

/** Responses over WebSocket (lib/runtime/responses-socket.ts): the key first, then the socket. */
async function acceptResponsesSocket(sockets: WebSocketServer, req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
  const who = { headers: req.headers, remoteAddress: req.socket.remoteAddress };
  const refusal = await admitSocket(who);
  if (refusal) return writeGatewayResponse(httpOnSocket(req, socket), refusal);
  sockets.handleUpgrade(req, socket, head, (ws) => {
    const session = new ResponsesSession(ws, who);
    ws.on("message", (data, binary) => (binary ? ws.close(1003, "text frames only") : session.receive(data.toString())));
    ws.on("close", () => session.gone());
    ws.on("error", () => ws.terminate());
  });
}

function goesToNext(url: string): boolean {
  return !isApiPath(url) && !isScimPath(url) && url !== "/metrics" && url !== "/healthz" && url !== "/readyz" && url !== ADMIN_PATH && url !== CRON_PATH && decodablePath(url);
}

/** Next.js answers a path with a malformed %-escape (`/api/…/cs_%FF`) with its HTML 500 page. */
function decodablePath(url: string): boolean {
  const q = url.indexOf("?");
  try {
    decodeURIComponent(q < 0 ? url : url.slice(0, q));
    return true;
  } catch {
    return false;
  }
}

function badPath(res: ServerResponse): void {
  res.writeHead(400, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code: "invalid_request", message: "The URL path has a malformed %-escape." } }));
}

async function health(res: ServerResponse, ready: boolean): Promise<void> {
  let ok = true;
  if (ready) {
    try {
      ok = await migrationsApplied();
    } catch {
      ok = false;
    }
  }
  res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
  res.end(JSON.stringify({ status: ok ? "ok" : "unavailable" }));
}

/** Prometheus text format, only with `Authorization: Bearer $METRICS_TOKEN` (off when unset). */
async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = env().METRICS_TOKEN;
  const ok = token !== undefined && safeEqual(bearerToken(req.headers.authorization), token);
  if (!ok) {
    res.writeHead(token ? 401 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: token ? "Invalid metrics token." : "Not found.", type: token ? "authentication_error" : "not_found", code: token ? "invalid_token" : "not_found" } }));
    return;
  }
  const { registry } = metrics();
  res.writeHead(200, { "content-type": registry.contentType });
  res.end(await registry.metrics());
}

/** GET /api/cron/tick (lib/runtime/cron.ts): one bounded pass of the background jobs. */
async function serveCron(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const r = refuseCronCaller(req.headers.authorization) ?? (await cronTick());
  res.writeHead(r.status, { "content-type": "application/json" });
  res.end(JSON.stringify(r.body));
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export async function startServer(opts: { port?: number; hostname?: string; dev?: boolean } = {}): Promise<RunningServer> {
  const e = env();
  const embedded = !e.DATABASE_URL;
  const release = embedded ? acquireInstance({ kind: "server" }) : () => {};
  let jobs: Jobs | null = null;
  try {
    await startTracing(); // only with OTEL_EXPORTER_OTLP_ENDPOINT set
    const prepared = prepareDatabase();
    markPrepared(prepared);
    await prepared;
    await startInvalidationListener();
    await warmRateLimiter();
    await startUpstreamHealth();
    // Serverless: no timers between invocations; the cron route drives the jobs (decision 0043).
    if (e.RUN_WORKERS && !e.serverless) jobs = await startJobs();
    if (e.WEBHOOK_ALLOW_HOSTS.length) {
      logger().warn({ hosts: e.WEBHOOK_ALLOW_HOSTS }, "WEBHOOK_ALLOW_HOSTS exempts these hosts from the private-address rule (tests only)");
    }
    // Next hooks WebSocket upgrades (dev's HMR) on the server it first serves, and ends every
    // socket it does not route; it gets this emitter instead, and only the upgrades off the API.
    const nextUpgrades = new EventEmitter() as http.Server;
    // The console (Next) loads on the first request that needs it, so that an instance serving
    // only the API never pays its memory (~100 MB) or its start (decision 0077); dev loads it now.
    let nextApp: { close?: () => Promise<void> } | null = null;
    let nextLoad: Promise<(req: IncomingMessage, res: ServerResponse) => Promise<void>> | null = null;
    const consoleHandler = () =>
      (nextLoad ??= (async () => {
        const { default: next } = await import("next");
        const app = next({ dev: opts.dev ?? false, dir: process.cwd(), hostname: opts.hostname ?? "localhost", port: opts.port ?? e.PORT, httpServer: nextUpgrades });
        await app.prepare();
        nextApp = app as { close?: () => Promise<void> };
        return app.getRequestHandler();
      })().catch((err) => {
        nextLoad = null; // the next console request tries again
        throw err;
      }));
    if (opts.dev) await consoleHandler();

    const server = http.createServer({ keepAliveTimeout: 65_000, noDelay: true }, (req, res) => {
      const url = req.url ?? "/";
      const done = (p: Promise<unknown>) =>
        p.catch((err) => {
          logger().error({ err }, "request handler failed");
          if (!res.headersSent) res.writeHead(500, isApiPath(url) ? { ...API_SECURITY_HEADERS, "content-type": "application/json" } : { "content-type": "application/json" });
          res.end();
        });
      // The API's answers carry them from writeGatewayResponse.
      if (isApiPath(url)) return void done(serveApi(req, res));
      // Headers Next does not add itself (next.config.ts, proxy.ts) for what never reaches it.
      if (!goesToNext(url)) for (const [k, v] of Object.entries(API_SECURITY_HEADERS)) res.setHeader(k, v);
      if (url === "/metrics") return void done(serveMetrics(req, res));
      if (url === "/healthz") return void done(health(res, false));
      if (url === "/readyz") return void done(health(res, true));
      if (url === ADMIN_PATH) return void done(handleAdminRequest(req, res));
      if (url === CRON_PATH) return void done(serveCron(req, res));
      if (isScimPath(url)) return void done(serveScim(req, res));
      if (!decodablePath(url)) return void badPath(res);
      stampPeer(req); // Next's handlers see headers only; sign-in limits need the peer (lib/net)
      void done(consoleHandler().then((handle) => handle(req, res)));
    });
    const sockets = new WebSocketServer({ noServer: true, maxPayload: e.TEXT_BODY_LIMIT_MB * 1024 * 1024 + 1024 });
    server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      if (!isApiPath(req.url ?? "/")) {
        return void consoleHandler().then(
          () => nextUpgrades.emit("upgrade", req, socket, head),
          () => socket.destroy(),
        );
      }
      socket.on("error", () => socket.destroy());
      const failed = (err: unknown) => {
        logger().error({ err }, "upgrade request failed");
        socket.destroy();
      };
      if (isResponsesSocket(req.method, req.url ?? "/", req.headers.upgrade)) return void acceptResponsesSocket(sockets, req, socket, head).catch(failed);
      // No other WebSocket on the API: the request is answered as plain HTTP on the socket.
      serveApi(req, httpOnSocket(req, socket)).catch(failed);
    });
    server.listen(opts.port ?? e.PORT, opts.hostname);
    await once(server, "listening");
    const port = (server.address() as { port: number }).port;
    // `npm run build` and `npm start` refuse to rebuild the console under a running server.
    const unmark = opts.dev ? () => {} : markRunning(process.cwd());
    dataDirSecret(ADMIN_SECRET_FILE); // created before the CLI or a test harness looks for it
    if (embedded) updateInstance({ port });
    logger().info({ port, database: embedded ? "pglite" : "postgres", publicBaseUrl: e.publicBaseUrl }, "gateway listening");

    let closing: Promise<void> | null = null;
    return {
      port,
      close: () =>
        (closing ??= (async () => {
          server.closeIdleConnections();
          for (const ws of sockets.clients) ws.close(1001, "server stopping"); // upgraded sockets are no longer the server's
          sockets.close();
          // Streams still open after a grace period are cut; their holds are settled or swept.
          const force = setTimeout(() => server.closeAllConnections(), 5_000);
          await new Promise<void>((r) => server.close(() => r()));
          clearTimeout(force);
          await drainGateway(); // what replies left running: settlements, stored responses, work after the reply
          await jobs?.stop();
          sharedHealth()?.stop();
          await closeRateLimiter();
          await nextApp?.close?.();
          await stopTracing(); // flushes the last spans
          await closeDb();
          unmark();
          release();
        })()),
    };
  } catch (err) {
    await jobs?.stop().catch(() => {});
    await closeDb().catch(() => {});
    release();
    throw err;
  }
}
