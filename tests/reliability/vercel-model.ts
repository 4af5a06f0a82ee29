/**
 * A model of Vercel's functions for the freeze test: each instance is the gateway in serverless
 * mode (SERVERLESS=1) as a child process, reached through a proxy that counts its requests in
 * flight. The preload (vercel-preload.mjs) gives the process Vercel's request context and reports
 * the work handed to waitUntil. Once nothing is in flight and nothing is pending, the instance is
 * frozen (SIGSTOP): no timers, no sockets served. The next request through the proxy thaws it
 * (SIGCONT) first; it may also be killed while frozen. `cron` calls the tick route as Vercel
 * Cron would.
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startTestServer, type StartOptions, type TestServer } from "../support/server";

const PRELOAD = path.resolve(import.meta.dirname, "vercel-preload.mjs");
export const CRON_SECRET = "cron-secret-for-the-freeze-test";

export interface Instance {
  /** The proxy's address: what clients use. */
  url: string;
  server: TestServer;
  frozen(): boolean;
  /** How many times it was frozen. */
  freezes(): number;
  /** Runs `fn` with the instance awake and counted busy (admin commands reach it directly). */
  awake<T>(fn: () => Promise<T>): Promise<T>;
  /** Emulates Vercel Cron: GET /api/cron/tick with the secret. */
  cron(): Promise<Record<string, unknown>>;
  /** Waits until the instance is frozen (idle and nothing pending). */
  untilFrozen(ms?: number): Promise<void>;
  /** SIGKILL, frozen or not (the platform discarding it). */
  kill(): Promise<void>;
  close(): Promise<void>;
}

export async function startInstance(opts: StartOptions = {}): Promise<Instance> {
  const socketPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gw-vercel-")), "model.sock");
  const server = await startTestServer({
    ...opts,
    env: { ...opts.env, SERVERLESS: "1", CRON_SECRET, NODE_OPTIONS: `--import ${PRELOAD}`, VERCEL_MODEL_SOCKET: socketPath },
  });
  const pid = server.pid();
  if (!pid) throw new Error("the server process has no id");
  let frozen = false;
  let freezes = 0;
  let inflight = 0;
  let pending = 0;
  let killed = false;
  const pendingWaiters = new Set<() => void>();

  // The preload's reports.
  const probe = net.connect(socketPath);
  let buf = "";
  probe.on("data", (d) => {
    buf += d.toString();
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const m = /^pending (\d+)$/.exec(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (!m) continue;
      pending = Number(m[1]);
      for (const w of pendingWaiters) w();
      pendingWaiters.clear();
    }
  });
  probe.on("error", () => {});
  await new Promise((r) => probe.once("connect", r));

  const thaw = () => {
    if (frozen && !killed) process.kill(pid, "SIGCONT");
    frozen = false;
  };
  /** Freezes once nothing is in flight and the process reports nothing pending after a turn of its loop. */
  let checking = false;
  const maybeFreeze = async () => {
    if (checking || killed) return;
    checking = true;
    try {
      while (!frozen && !killed && inflight === 0) {
        const answered = new Promise<void>((r) => pendingWaiters.add(r));
        probe.write("idle?\n");
        await answered;
        if (inflight > 0 || killed) return;
        if (pending === 0) {
          process.kill(pid, "SIGSTOP");
          frozen = true;
          freezes++;
          return;
        }
        // Work registered with waitUntil keeps it up: wait for the next report.
        await new Promise<void>((r) => pendingWaiters.add(r));
      }
    } finally {
      checking = false;
    }
  };
  const busy = async <T>(fn: () => Promise<T>): Promise<T> => {
    inflight++;
    thaw();
    try {
      return await fn();
    } finally {
      inflight--;
      void maybeFreeze();
    }
  };

  const target = new URL(server.url);
  const proxy = http.createServer((req, res) => {
    void busy(
      () =>
        new Promise<void>((done) => {
          const up = http.request(
            { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent: false },
            (r) => {
              res.writeHead(r.statusCode ?? 502, r.headers);
              r.pipe(res);
              r.on("end", done);
              r.on("error", done);
            },
          );
          up.on("error", () => {
            if (!res.headersSent) res.writeHead(502);
            res.end();
            done();
          });
          res.on("close", () => done());
          req.pipe(up);
        }),
    );
  });
  proxy.listen(0, "127.0.0.1");
  await new Promise((r) => proxy.once("listening", r));
  const url = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
  void maybeFreeze();

  return {
    url,
    server,
    frozen: () => frozen,
    freezes: () => freezes,
    awake: busy,
    async cron() {
      const r = await fetch(`${url}/api/cron/tick`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
      const body = (await r.json()) as Record<string, unknown>;
      if (r.status !== 200) throw new Error(`cron answered ${r.status}: ${JSON.stringify(body)}`);
      return body;
    },
    async untilFrozen(ms = 10_000) {
      const end = Date.now() + ms;
      while (!frozen) {
        if (Date.now() > end) throw new Error(`instance not frozen after ${ms} ms (in flight ${inflight}, pending ${pending})`);
        void maybeFreeze();
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async kill() {
      killed = true;
      process.kill(pid, "SIGKILL");
      frozen = false;
      await new Promise((r) => setTimeout(r, 100));
    },
    async close() {
      thaw();
      killed = true;
      probe.destroy();
      proxy.closeAllConnections();
      proxy.close();
      await server.dispose();
    },
  };
}

