/**
 * Starts the real server as `npm start` runs it (built Next app, custom server) in a child
 * process, on a fresh database: PostgreSQL when DATABASE_URL is set, PGlite otherwise.
 * Every server gets its own port (and DATA_DIR unless it shares one); logs go to DATA_DIR/server-<port>.log.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { basePostgresUrl, createDatabase } from "./postgres";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface StartOptions {
  /** Extra environment for the server process. */
  env?: Record<string, string | undefined>;
  /** A gateway config object (written to a file and passed as GATEWAY_CONFIG). */
  config?: unknown;
  /** "custom" = `npm start` (default); "next" = `next start` with the route-handler mounts only. */
  mount?: "custom" | "next";
  /** Force PGlite even when DATABASE_URL is set. */
  database?: "auto" | "pglite";
  /** Another instance on the same PostgreSQL database (scale-out tests); it owns the database. */
  shareWith?: TestServer;
  /** The port to try first (default: a free one); taken by then, the server starts on another. */
  port?: number;
}

export interface AdminResult {
  exitCode: number;
  stdout: string[];
  stderr: string[];
}

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  /** The server's own database URL (PostgreSQL mode only). */
  databaseUrl: string | undefined;
  env: Record<string, string>;
  /** Runs an admin CLI command through the server's local admin endpoint. */
  admin(...argv: string[]): Promise<AdminResult>;
  /** Direct SQL on the server's PostgreSQL database (throws on PGlite). */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  logs(): string;
  /** The server process's id while it runs (the freeze test stops and continues it). */
  pid(): number | undefined;
  /**
   * Values that must never appear in the server's log (API keys made by the fixtures, upstream
   * credentials from the config, Stripe secrets): dispose() fails the test file if one does.
   */
  secrets: Set<string>;
  /** Stops the process (SIGTERM, or SIGKILL to simulate a crash) and keeps the data. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the process again on the same port, database and data folder. */
  restart(): Promise<void>;
  /** Stops and deletes everything. */
  dispose(): Promise<void>;
}

/** Upstream API keys named in a config, and secret env values given to the server. */
function configSecrets(config: unknown, env: Record<string, string>): string[] {
  const out: string[] = [];
  const cfg = typeof config === "string" ? safeJson(config) : config;
  for (const u of (cfg as { upstreams?: { apiKey?: unknown }[] } | undefined)?.upstreams ?? []) {
    if (typeof u.apiKey === "string" && !u.apiKey.includes("${")) out.push(u.apiKey);
  }
  for (const name of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "AUTH_SECRET", "ENCRYPTION_KEY", "METRICS_TOKEN"]) {
    if (env[name]) out.push(env[name]!);
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The admin CLI as a process (PostgreSQL mode: `next start` has no local admin endpoint). */
async function runCli(env: Record<string, string>, argv: string[]): Promise<AdminResult> {
  if (!env.DATABASE_URL) throw new Error("the next mount's admin commands need PostgreSQL");
  const proc = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/admin.ts"), ...argv], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout!.on("data", (d) => (stdout += d));
  proc.stderr!.on("data", (d) => (stderr += d));
  const exitCode: number = await new Promise((r) => proc.on("exit", (c) => r(c ?? 1)));
  const lines = (t: string) => t.split("\n").filter(Boolean);
  return { exitCode, stdout: lines(stdout), stderr: lines(stderr) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

export function usesPostgres(opts: StartOptions = {}): boolean {
  return opts.database !== "pglite" && !!basePostgresUrl();
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  // Instances sharing a database also share DATA_DIR (media, secrets), as one machine would.
  const dataDir = opts.shareWith?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "gw-test-"));
  if (opts.shareWith && !opts.shareWith.databaseUrl) throw new Error("shareWith needs PostgreSQL");
  const db = opts.shareWith
    ? { url: opts.shareWith.databaseUrl!, drop: async () => {} }
    : usesPostgres(opts)
      ? await createDatabase(basePostgresUrl()!)
      : null;
  let configFile: string | undefined;
  if (opts.config !== undefined) {
    configFile = path.join(dataDir, "gateway.config.json");
    fs.writeFileSync(configFile, typeof opts.config === "string" ? opts.config : JSON.stringify(opts.config, null, 2));
  }
  const encryptionKey = opts.shareWith?.env.ENCRYPTION_KEY ?? `test-${process.pid}-${Math.random()}`;

  /** The server's environment for a port (the port also names the URL it announces). */
  const envFor = (port: number): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    delete env.DATABASE_URL;
    delete env.GATEWAY_CONFIG;
    delete env.VITEST;
    delete env.VITEST_POOL_ID;
    delete env.VITEST_WORKER_ID;
    Object.assign(env, {
      NODE_ENV: "production",
      PORT: String(port),
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      // Verbose by default, so the secrets check below sees every line the server can write.
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "debug",
      // Instances sharing a database must share the key that encrypts upstream credentials.
      ENCRYPTION_KEY: encryptionKey,
    });
    if (db) env.DATABASE_URL = db.url;
    if (configFile) env.GATEWAY_CONFIG = configFile;
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    return env;
  };
  let port = 0;
  let env: Record<string, string> = {};
  let logFile = "";
  let child: ChildProcess | null = null;
  let pool: pg.Pool | null = null;

  /**
   * Spawns the server and waits until it is ready. Ready means its own log says so, not just that
   * something answers on the port: test files run in parallel, and another file's server may
   * have taken the port between freePort() and this bind (this one then exits with EADDRINUSE).
   */
  const launch = async () => {
    const from = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0; // a restart appends
    const out = fs.openSync(logFile, "a");
    const args =
      opts.mount === "next"
        ? [path.join(ROOT, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"]
        : ["--import", "tsx", path.join(ROOT, "scripts/start.ts"), "--no-rebuild"]; // servers share one build
    const proc: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ["ignore", out, out] as const });
    fs.closeSync(out);
    child = proc;
    let exited: number | null = null;
    proc.on("exit", (code: number | null) => (exited = code ?? -1));
    const deadline = Date.now() + 90_000;
    const readyLine = opts.mount === "next" ? /Ready in/ : new RegExp(`Generation Gateway ready: open http://localhost:${port}\\b`);
    const ownLog = () => fs.readFileSync(logFile).subarray(from).toString("utf8");
    // `next start` only prepares the database on the first API request; /healthz is custom-server only.
    const probe = opts.mount === "next" ? "/v1/models" : "/healthz";
    for (;;) {
      if (exited !== null) {
        const log = ownLog();
        throw Object.assign(new Error(`server exited with ${exited}:\n${log.slice(-4000)}`), { portTaken: log.includes("EADDRINUSE") });
      }
      if (readyLine.test(ownLog())) {
        try {
          const r = await fetch(`http://127.0.0.1:${port}${probe}`);
          if (r.status < 500) break;
        } catch {}
      }
      if (Date.now() > deadline) throw new Error(`server did not start:\n${ownLog().slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  };

  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const gone = new Promise((r) => proc.once("exit", r));
    proc.kill(signal);
    await Promise.race([gone, new Promise((r) => setTimeout(r, 15_000))]);
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGKILL");
      await gone;
    }
  };

  for (let attempt = 1; ; attempt++) {
    port = attempt === 1 && opts.port ? opts.port : await freePort();
    env = envFor(port);
    logFile = path.join(dataDir, `server-${port}.log`);
    try {
      await launch();
      break;
    } catch (err) {
      if (!(err as { portTaken?: boolean }).portTaken || attempt === 5) throw err;
    }
  }

  const server: TestServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    databaseUrl: db?.url,
    env,
    async admin(...argv) {
      if (opts.mount === "next") return runCli(env, argv);
      const secret = fs.readFileSync(path.join(dataDir, "admin.secret"), "utf8").trim();
      const r = await fetch(`http://127.0.0.1:${port}/_internal/admin`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-admin-secret": secret },
        body: JSON.stringify({ argv }),
      });
      if (!r.ok) throw new Error(`admin endpoint answered ${r.status}`);
      return (await r.json()) as AdminResult;
    },
    async query<T>(text: string, params: unknown[] = []) {
      if (!db) throw new Error("server.query needs PostgreSQL (DATABASE_URL)");
      if (!pool) {
        pool = new pg.Pool({ connectionString: db.url, max: 2 });
        // Idle clients are terminated when the database is dropped (a shared one by its owner).
        pool.on("error", () => {});
      }
      return (await pool.query(text, params)).rows as T[];
    },
    logs: () => fs.readFileSync(logFile, "utf8"),
    pid: () => (child as ChildProcess | null)?.pid,
    secrets: new Set(configSecrets(opts.config, env)),
    stop,
    restart: launch,
    async dispose() {
      await stop();
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "";
      const leaked = [...server.secrets].filter((secret) => secret.length >= 8 && log.includes(secret));
      await pool?.end().catch(() => {});
      await db?.drop().catch(() => {});
      if (!process.env.KEEP_TEST_DATA && !opts.shareWith) fs.rmSync(dataDir, { recursive: true, force: true });
      if (leaked.length) throw new Error(`the server log contains ${leaked.length} secret(s), e.g. ${leaked[0]!.slice(0, 6)}…`);
    },
  };
  return server;
}
