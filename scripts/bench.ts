/**
 * `npm run bench`: the gateway's own overhead, measured (issue "Performance").
 *
 * Starts a zero-latency fake OpenAI upstream and the gateway exactly as `npm start` serves it
 * (custom server, real PostgreSQL, key auth, hold/settle billing and the request log all on),
 * then measures, interleaved in one run, direct calls to the upstream vs calls through the
 * gateway: non-streamed and streamed, at 1 and 16 concurrent clients (and 64 for the
 * no-error/no-lost-row check). Prints requests/s, p50, p99, time to the first streamed event,
 * the added latency and the gateway's CPU time per request.
 *
 *   npm run bench -- [--seconds 4] [--rounds 3] [--clients 1,16,64] [--modes plain,stream] [--peer portkey,floor] [--json FILE] [--cpu-prof DIR]
 *                    [--soak 60] [--rate 200] [--scale on|off] [--tracing on|off] [--sizes 1k,100k,1m|off] [--warmup 2]
 *   npm run bench -- --profile streams|agents|next|p99 [...]   (scripts/bench-profiles.ts lists each one's flags)
 *
 * `--cpu-prof DIR` (formerly `--profile DIR`, still read when DIR is not a profile's name): the
 * gateway's CPU profile.
 *
 * `--warmup`: seconds each target runs each mode (and, in `--sizes`, half that per body) before
 * anything is measured, so the figures are a warm server's, as a gateway that has run for a while
 * serves: measured from its first second, a just-started Node server's compilation shows as a
 * slower 1-client p50, p99 and CPU per request (figures in docs/performance.md).
 *
 * `--sizes`: the added latency of one client's non-streamed request whose body is a whole agent
 * conversation of that size, passed through (chat completions to an OpenAI upstream) and
 * converted (Anthropic Messages to the same upstream), against a direct call of the same size.
 *
 * `--peer floor` adds a bare proxy (node:http in, undici out, the body piped back; no auth, no
 * billing, no log): what any Node gateway pays on this machine, so that the gateway's own share
 * of its added latency reads as gateway − floor.
 *
 * `--tracing on` exports every request's spans over OTLP/HTTP to a sink in the bench process
 * (it reads and drops them), to measure what tracing costs; off (the default) leaves
 * OTEL_EXPORTER_OTLP_ENDPOINT unset, as an operator who does not trace runs it.
 *
 * The load generator is pinned to CPU 0 and the servers to CPU 1 when `taskset` exists.
 * DATABASE_URL must point at PostgreSQL (default: the local socket /var/run/postgresql).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Agent, Pool, request } from "undici";
import { runProfile } from "./bench-profiles";

const ROOT = path.resolve(import.meta.dirname, "..");
const UPSTREAM_KEY = "sk-bench-upstream";
/** The chat request sent straight to the upstream (direct, and through the peers). */
const upstreamChat = (stream: boolean) => JSON.stringify({ model: "bench-upstream", messages: [{ role: "user", content: "Hello" }], ...(stream ? { stream: true } : {}) });
const REPLY_WORDS = "Hello there, this is the benchmark upstream answering quickly.".split(/(?=\s)/);

// ---------------------------------------------------------------- bare proxy (child mode, --peer floor)

function serveFloor(upstreamPort: number): void {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    try {
      const up = await request(`http://127.0.0.1:${upstreamPort}${req.url}`, {
        method: "POST",
        headers: { authorization: `Bearer ${UPSTREAM_KEY}`, "content-type": "application/json" },
        body: Buffer.concat(chunks),
        dispatcher: agent,
      });
      res.writeHead(up.statusCode, { "content-type": String(up.headers["content-type"] ?? "application/json") });
      for await (const c of up.body) res.write(c);
      res.end();
    } catch {
      res.writeHead(502).end();
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => console.log((server.address() as AddressInfo).port));
}

async function startFloor(upstreamPort: number, log: string): Promise<{ proc: ChildProcess; target: Target }> {
  const { proc, port } = await startChild(["--serve-floor", String(upstreamPort)], log, "floor proxy");
  return {
    proc,
    target: {
      name: "floor",
      origin: `http://127.0.0.1:${port}`,
      path: "/v1/chat/completions",
      headers: {},
      body: upstreamChat,
      pid: pidOnPort(port) ?? proc.pid!,
    },
  };
}

// ---------------------------------------------------------------- fake upstream (child mode)

function serveUpstream(): void {
  const usage = { prompt_tokens: 9, completion_tokens: REPLY_WORDS.length, total_tokens: 9 + REPLY_WORDS.length };
  const base = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1731000000, model: "bench-upstream" };
  const chunk = (delta: unknown, finish: string | null = null, withUsage = false) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(withUsage ? { usage: null } : {}) })}\n\n`;
  const plain = JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1731000000,
    model: "bench-upstream",
    choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", content: REPLY_WORDS.join(""), refusal: null } }],
    usage,
  });
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`) {
        res.writeHead(401, { "content-type": "application/json" });
        return res.end('{"error":{"message":"bad key","type":"invalid_request_error"}}');
      }
      const stream = body.includes('"stream":true');
      if (!stream) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(plain);
      }
      const withUsage = body.includes('"include_usage":true');
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(chunk({ role: "assistant", content: "" }, null, withUsage));
      if (body.includes('"bench-paced"')) return pacedStream(res, withUsage, chunk, base);
      for (const w of REPLY_WORDS) res.write(chunk({ content: w }, null, withUsage));
      res.write(chunk({}, "stop", withUsage));
      if (withUsage) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
}

/**
 * `--profile streams`: a long stream, one token every `--pace-ms` for `--pace-tokens` tokens, as a
 * model thinking aloud for a minute; its usage counts exactly the tokens sent.
 */
function pacedStream(res: http.ServerResponse, withUsage: boolean, chunk: (delta: unknown, finish?: string | null, withUsage?: boolean) => string, base: object): void {
  const every = Number(opt("pace-ms", "250"));
  const tokens = Number(opt("pace-tokens", "240"));
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < tokens) {
      sent++;
      res.write(chunk({ content: " tok" }, null, withUsage));
      return;
    }
    clearInterval(timer);
    res.write(chunk({}, "stop", withUsage));
    if (withUsage) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 9, completion_tokens: tokens, total_tokens: 9 + tokens } })}\n\n`);
    res.end("data: [DONE]\n\n");
  }, every);
  res.on("close", () => clearInterval(timer));
}

// ---------------------------------------------------------------- helpers

const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : def;
};
/** `--profile streams|agents|next|p99` picks a bench mode (scripts/bench-profiles.ts); any other value is the older spelling of `--cpu-prof DIR`. */
const BENCH_PROFILES = ["streams", "agents", "next", "p99"] as const;
const benchProfile = (BENCH_PROFILES as readonly string[]).includes(opt("profile", "")) ? opt("profile", "") : "";
const cpuProfileDir = () => opt("cpu-prof", benchProfile ? "" : opt("profile", ""));
const hasTaskset = spawnSync("sh", ["-c", "command -v taskset"]).status === 0 && os.cpus().length >= 2;
const pinned = (cpu: number, cmd: string[]) => (hasTaskset ? ["taskset", "-c", String(cpu), ...cmd] : cmd);

/** stdout is piped only for a child whose first line we read (the fake upstream's port); else it goes to the log, never into an unread pipe. */
function spawnLogged(cmd: string[], env: NodeJS.ProcessEnv, log: string, pipeStdout = false): ChildProcess {
  const out = fs.openSync(log, "a");
  const p = spawn(cmd[0]!, cmd.slice(1), { cwd: ROOT, env, stdio: ["ignore", pipeStdout ? "pipe" : out, out] });
  fs.closeSync(out);
  return p;
}

const startUpstream = (log: string, extra: string[] = []) => startChild(["--serve-upstream", ...extra], log, "upstream");

/** This script in one of its child modes, pinned to the servers' CPU; it prints its port first. */
async function startChild(mode: string[], log: string, what: string): Promise<{ port: number; proc: ChildProcess }> {
  const proc = spawnLogged(pinned(1, [process.execPath, "--import", "tsx", path.join(ROOT, "scripts/bench.ts"), ...mode]), process.env, log, true);
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.once("data", (d) => resolve(Number(String(d).trim())));
    proc.once("exit", (c) => reject(new Error(`${what} exited with ${c}`)));
  });
  return { port, proc };
}

function cpuMs(pid: number): number {
  // /proc/<pid>/stat fields 14 and 15: utime and stime in clock ticks (100 per second on Linux).
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The pid listening on a TCP port (the gateway's node process under taskset/tsx). */
function pidOnPort(port: number): number | null {
  const r = spawnSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  const m = /pid=(\d+)/.exec(r.stdout ?? "");
  return m ? Number(m[1]) : null;
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ---------------------------------------------------------------- the gateway under test

export interface Gateway {
  url: string;
  pid: number;
  key: string;
  dbUrl: string;
  encryptionKey: string;
  proc: ChildProcess;
  dataDir: string;
  drop(): Promise<void>;
}

/** The gateway as `npm start` runs it; with `share`, a second instance on the same database and key. */
async function startGateway(upstreamPort: number, log: string, share?: Gateway, cpu = 1, extra: { env?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<Gateway> {
  const { createDatabase } = await import("../tests/support/postgres");
  const pg = (await import("pg")).default;
  const base = process.env.DATABASE_URL || (fs.existsSync("/var/run/postgresql") ? `postgresql://${os.userInfo().username}@localhost/postgres?host=/var/run/postgresql` : "");
  if (!base) throw new Error("bench needs PostgreSQL: set DATABASE_URL");
  const db = share ? { url: share.dbUrl, drop: async () => {} } : await createDatabase(base);
  const encryptionKey = share?.encryptionKey ?? `bench-${Math.random().toString(36).slice(2)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-bench-"));
  const port = await new Promise<number>((resolve) => {
    const s = http.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const config = {
    upstreams: [{ id: "fake", protocol: "openai", baseUrl: `http://127.0.0.1:${upstreamPort}/v1`, apiKey: UPSTREAM_KEY }],
    models: [
      { id: "bench-chat", kind: "text", upstream: "fake", upstreamModel: "bench-upstream", price: { inputPerMTok: 1, outputPerMTok: 2 }, defaultMaxTokens: 256 },
      // --profile streams: the fake upstream paces this one.
      { id: "bench-paced", kind: "text", upstream: "fake", upstreamModel: "bench-paced", price: { inputPerMTok: 1, outputPerMTok: 2 }, defaultMaxTokens: 4096 },
      // --profile agents: a long-context model that reads images.
      { id: "bench-agent", kind: "text", upstream: "fake", upstreamModel: "bench-upstream", price: { inputPerMTok: 1, outputPerMTok: 2 }, maxOutputTokens: 8192, contextWindow: 1_000_000, inputModalities: ["text", "image"] },
    ],
  };
  fs.writeFileSync(path.join(dataDir, "gateway.config.json"), JSON.stringify(config));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    GATEWAY_CONFIG: path.join(dataDir, "gateway.config.json"),
    PUBLIC_BASE_URL: `http://localhost:${port}`,
    LOG_LEVEL: "warn",
    ENCRYPTION_KEY: encryptionKey,
    // The bench measures the gateway, not the per-key rate limiter.
    DEFAULT_KEY_RPM: "100000000",
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpSink ?? "",
    ...extra.env,
  };
  const prof = cpuProfileDir();
  // --node-args: V8/Node flags for the gateway process only (e.g. "--trace-gc" or a heap setting), to try a setting without changing how it starts.
  const nodeArgs = [...(prof ? ["--cpu-prof", "--cpu-prof-interval", "100", "--cpu-prof-dir", path.resolve(prof)] : []), ...opt("node-args", "").split(" ").filter(Boolean), ...(extra.nodeArgs ?? [])];
  // --no-rebuild: /v1 never goes through Next, so a console build older than lib/ changes nothing measured here.
  const proc = spawnLogged(pinned(cpu, [process.execPath, ...nodeArgs, "--import", "tsx", path.join(ROOT, "scripts/start.ts"), "--no-rebuild"]), env, log);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`gateway exited; see ${log}`);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) break;
    } catch {}
    if (i > 600) throw new Error(`gateway did not start; see ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const admin = async (...argv: string[]) => {
    const secret = fs.readFileSync(path.join(dataDir, "admin.secret"), "utf8").trim();
    const r = await fetch(`${url}/_internal/admin`, { method: "POST", headers: { "content-type": "application/json", "x-admin-secret": secret }, body: JSON.stringify({ argv }) });
    const j = (await r.json()) as { exitCode: number; stdout: string[]; stderr: string[] };
    if (j.exitCode !== 0) throw new Error(`admin ${argv.join(" ")}: ${j.stderr.join(" ")}`);
    return j.stdout;
  };
  let key = share?.key ?? "";
  if (!share) {
    await admin("user", "create", "--email", "bench@example.com", "--password", "bench bench bench");
    await admin("credit", "--email", "bench@example.com", "--usd", "100000");
    key = (await admin("key", "create", "--email", "bench@example.com", "--name", "bench")).at(-1)!;
  }
  const pid = pidOnPort(port) ?? proc.pid!;
  void pg;
  return {
    url,
    pid,
    key,
    dbUrl: db.url,
    encryptionKey,
    proc,
    dataDir,
    drop: async () => {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(t);
      await db.drop().catch(() => {});
      fs.rmSync(dataDir, { recursive: true, force: true });
      void share;
    },
  };
}

// ---------------------------------------------------------------- load generator

export interface Target {
  name: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body(stream: boolean): string;
  pid?: number;
}

export interface Sample {
  requests: number;
  errors: number;
  seconds: number;
  latencies: number[];
  ttfb: number[];
  cpuMs?: number;
}

/** Requests sent to each target, warm-ups included: what the end-of-run check counts rows against. */
const sentTo = new Map<Target, number>();

async function run(target: Target, clients: number, stream: boolean, seconds: number): Promise<Sample> {
  const pool = new Pool(target.origin, { connections: clients, pipelining: 1, keepAliveTimeout: 60_000 });
  const body = target.body(stream);
  const headers = { "content-type": "application/json", ...target.headers };
  const latencies: number[] = [];
  const ttfb: number[] = [];
  let errors = 0;
  const one = async () => {
    sentTo.set(target, (sentTo.get(target) ?? 0) + 1);
    const t0 = performance.now();
    try {
      const res = await pool.request({ method: "POST", path: target.path, headers, body });
      let first = true;
      let text = "";
      for await (const c of res.body) {
        if (first) {
          ttfb.push(performance.now() - t0);
          first = false;
        }
        if (stream) text += c;
      }
      if (res.statusCode !== 200 || (stream && !text.includes("[DONE]"))) errors++;
      else latencies.push(performance.now() - t0);
    } catch {
      errors++;
    }
  };
  // Warm the connections up before measuring.
  await Promise.all(Array.from({ length: clients }, () => one()));
  latencies.length = 0;
  ttfb.length = 0;
  errors = 0;
  const cpu0 = target.pid ? cpuMs(target.pid) : 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpu = target.pid ? cpuMs(target.pid) - cpu0 : undefined;
  await pool.close();
  return { requests: latencies.length + errors, errors, seconds: elapsed, latencies, ttfb, cpuMs: cpu };
}

function merge(samples: Sample[]): Sample {
  return {
    requests: samples.reduce((n, s) => n + s.requests, 0),
    errors: samples.reduce((n, s) => n + s.errors, 0),
    seconds: samples.reduce((n, s) => n + s.seconds, 0),
    latencies: samples.flatMap((s) => s.latencies).sort((a, b) => a - b),
    ttfb: samples.flatMap((s) => s.ttfb).sort((a, b) => a - b),
    cpuMs: samples[0]?.cpuMs === undefined ? undefined : samples.reduce((n, s) => n + (s.cpuMs ?? 0), 0),
  };
}

// ---------------------------------------------------------------- main

/** `--tracing on`: an OTLP/HTTP endpoint that accepts and drops spans (a collector's cost is not ours). */
let otlpSink: string | undefined;
async function startOtlpSink(): Promise<{ url: string; spans: () => number }> {
  let exports = 0;
  const s = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  s.unref();
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, spans: () => exports };
}

async function main() {
  if (benchProfile) return runProfile(benchProfile as (typeof BENCH_PROFILES)[number], { opt, startUpstream, startGateway, startFloor, run, merge, pct, cpuMs, rssMb, pidOnPort, books, pinned, spawnLogged, root: ROOT, upstreamKey: UPSTREAM_KEY, hasTaskset });
  const seconds = Number(opt("seconds", "4"));
  const rounds = Number(opt("rounds", "3"));
  const clientList = opt("clients", "1,16,64").split(",").map(Number);
  const modes = opt("modes", "plain,stream").split(",").map((m) => m === "stream");
  const peers = opt("peer", "").split(",").filter(Boolean);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-bench-logs-"));
  if (hasTaskset) spawnSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" });

  const tracing = opt("tracing", "off") === "on";
  const sink = tracing ? await startOtlpSink() : null;
  otlpSink = sink?.url;
  console.error(`tracing: ${tracing ? `on (OTLP/HTTP to ${sink!.url})` : "off"}`);
  const upstream = await startUpstream(path.join(logDir, "upstream.log"));
  const gw = await startGateway(upstream.port, path.join(logDir, "gateway.log"));
  const targets: Target[] = [
    {
      name: "direct",
      origin: `http://127.0.0.1:${upstream.port}`,
      path: "/v1/chat/completions",
      headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
      body: upstreamChat,
    },
    {
      name: "gateway",
      origin: gw.url,
      path: "/v1/chat/completions",
      headers: { authorization: `Bearer ${gw.key}` },
      body: (stream) => JSON.stringify({ model: "bench-chat", messages: [{ role: "user", content: "Hello" }], ...(stream ? { stream: true } : {}) }),
      pid: gw.pid,
    },
  ];
  const peerProcs: ChildProcess[] = [];
  for (const peer of peers) {
    const start = peer === "portkey" ? startPortkey : peer === "floor" ? startFloor : null;
    if (!start) throw new Error(`--peer ${peer}: unknown (portkey or floor)`);
    const p = await start(upstream.port, path.join(logDir, `${peer}.log`)).catch((e) => {
      console.error(`--peer ${peer} skipped: ${(e as Error).message}`);
      return null;
    });
    if (p) {
      peerProcs.push(p.proc);
      targets.push(p.target);
    }
  }

  // What the processes burn with no traffic at all (background jobs, timers), to subtract per request.
  const idleRate = new Map<string, number>();
  for (const t of targets) if (t.pid) idleRate.set(t.name, 0);
  {
    const before = new Map([...idleRate.keys()].map((n) => [n, cpuMs(targets.find((t) => t.name === n)!.pid!)]));
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 5000));
    const dt = (performance.now() - t0) / 1000;
    for (const [n, c] of before) idleRate.set(n, (cpuMs(targets.find((t) => t.name === n)!.pid!) - c) / dt);
  }
  console.log(`bench: ${seconds}s × ${rounds} rounds per cell, clients ${clientList.join("/")}, taskset ${hasTaskset ? "on (loadgen cpu0, servers cpu1)" : "off"}; logs in ${logDir}`);
  // Each target runs every mode for a while before anything is measured: the figures are a
  // warm server's (compiled code, grown heap), not its first seconds after starting.
  const warmup = Number(opt("warmup", "2"));
  if (warmup > 0) for (const t of targets) for (const stream of modes) await run(t, Math.max(...clientList), stream, warmup);
  const results = new Map<string, Sample[]>();
  for (let r = 0; r < rounds; r++)
    for (const clients of clientList)
      for (const stream of modes)
        for (const t of targets) {
          const k = `${t.name}|${clients}|${stream}`;
          const s = await run(t, clients, stream, seconds);
          results.set(k, [...(results.get(k) ?? []), s]);
        }

  const rows: Record<string, unknown>[] = [];
  for (const clients of clientList)
    for (const stream of modes) {
      const direct = merge(results.get(`direct|${clients}|${stream}`)!);
      for (const t of targets) {
        const s = merge(results.get(`${t.name}|${clients}|${stream}`)!);
        rows.push({
          target: t.name,
          clients,
          mode: stream ? "stream" : "plain",
          "req/s": Math.round(s.requests / s.seconds),
          "p50 ms": +pct(s.latencies, 50).toFixed(2),
          "p99 ms": +pct(s.latencies, 99).toFixed(2),
          "first event p50 ms": stream ? +pct(s.ttfb, 50).toFixed(2) : "",
          "added p50 ms": t.name === "direct" ? "" : +(pct(s.latencies, 50) - pct(direct.latencies, 50)).toFixed(2),
          "added first-event p50 ms": t.name === "direct" || !stream ? "" : +(pct(s.ttfb, 50) - pct(direct.ttfb, 50)).toFixed(2),
          "cpu ms/req": s.cpuMs === undefined ? "" : +(s.cpuMs / Math.max(1, s.requests)).toFixed(3),
          "cpu ms/req net of idle": s.cpuMs === undefined ? "" : +((s.cpuMs - (idleRate.get(t.name) ?? 0) * s.seconds) / Math.max(1, s.requests)).toFixed(3),
          errors: s.errors,
        });
      }
    }
  console.table(rows);

  // Every request through the gateway must have its log row and (when charged) its ledger row.
  await new Promise((r) => setTimeout(r, 500));
  const invariants = await books(gw.dbUrl, sentTo.get(targets.find((t) => t.name === "gateway")!) ?? 0);
  console.log("invariants:", invariants);
  console.log("idle cpu ms per second:", Object.fromEntries([...idleRate].map(([k, v]) => [k, +v.toFixed(2)])));

  const gatewayTarget = targets.find((t) => t.name === "gateway")!;
  const sizes = opt("sizes", "1k,100k,1m");
  const sizeRows = sizes === "off" ? null : await bodySizes(upstream.port, gw, sizes.split(",").map(parseSize), seconds, rounds, warmup, targets.find((t) => t.name === "floor"));
  if (sizeRows) console.table(sizeRows);
  const soakSeconds = Number(opt("soak", "60"));
  const soakResult = soakSeconds > 0 ? await soak(gatewayTarget, gw.pid, Number(opt("rate", "200")), soakSeconds) : null;
  if (soakResult) console.log("soak:", soakResult);
  let scaleResult: Record<string, unknown> | null = null;
  if (opt("scale", "on") !== "off") {
    // A second instance on the same database, pinned to the load generator's core: on this
    // 2-core machine the figure shows contention as much as scaling.
    const gw2 = await startGateway(upstream.port, path.join(logDir, "gateway2.log"), gw, 0);
    const second: Target = { ...gatewayTarget, name: "gateway-2", origin: gw2.url, pid: gw2.pid };
    const one = merge([await run(gatewayTarget, 16, false, seconds), await run(gatewayTarget, 16, false, seconds)]);
    const [a, b] = await Promise.all([run(gatewayTarget, 8, false, seconds * 2), run(second, 8, false, seconds * 2)]);
    scaleResult = {
      "one instance req/s (16 clients)": Math.round(one.requests / one.seconds),
      "two instances req/s (8 + 8 clients)": Math.round(a.requests / a.seconds + b.requests / b.seconds),
      errors: one.errors + a.errors + b.errors,
    };
    console.log("scale:", scaleResult);
    await gw2.drop();
  }

  const out = opt("json", "");
  if (out) fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), seconds, rounds, rows, sizes: sizeRows, invariants, idleCpuMsPerS: Object.fromEntries(idleRate), soak: soakResult, scale: scaleResult }, null, 2));
  for (const p of peerProcs) p.kill("SIGTERM");
  if (sink) console.error(`tracing: the OTLP sink received ${sink.spans()} export requests`);
  await gw.drop();
  upstream.proc.kill("SIGTERM");
}

/** The books after a run: requests sent = request-log rows = charge rows, balance = Σ ledger, nothing held. */
async function books(dbUrl: string, sent: number) {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const [logs] = (await c.query("select count(*)::int as n, count(*) filter (where status = 200)::int as ok from request_logs")).rows;
    const [ledger] = (await c.query("select count(*)::int as n from ledger_entries where kind = 'charge'")).rows;
    const [acct] = (await c.query("select a.balance_micro_usd::bigint as balance, a.held_micro_usd::bigint as held, (select sum(delta_micro_usd) from ledger_entries)::bigint as sum from accounts a")).rows;
    const [holds] = (await c.query("select count(*)::int as n from holds")).rows;
    return { gatewayRequestsSent: sent, requestLogRows: logs.n, ok: logs.ok, chargeLedgerRows: ledger.n, balanceEqualsLedger: String(acct.balance) === String(acct.sum), held: Number(acct.held), holdRows: holds.n };
  } finally {
    await c.end();
  }
}

function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(k|m)?b?$/i.exec(s.trim());
  if (!m) throw new Error(`--sizes: cannot read "${s}" (e.g. 1k,100k,1m)`);
  return Math.round(Number(m[1]) * (m[2]?.toLowerCase() === "m" ? 1 << 20 : m[2] ? 1024 : 1));
}

/**
 * An agent's conversation of about `bytes` bytes: alternating turns of up to ~4 KB, then the
 * question. Turns read like code and tool output — lines and quotes, which JSON escapes — since
 * escaped text costs a JSON parser and serialiser several times what plain prose does.
 */
function conversation(bytes: number): { role: "user" | "assistant"; content: string }[] {
  const turn = 'src/server.ts:42:  const body = await readBody(req, "utf8"); // read once\n'.repeat(50);
  const turns: { role: "user" | "assistant"; content: string }[] = [];
  for (let left = bytes - 120; left > 40; left -= Math.min(turn.length, left) + 40)
    turns.push({ role: turns.length % 2 ? "assistant" : "user", content: turn.slice(0, Math.min(turn.length, left)) });
  if (turns.length % 2) turns.push({ role: "assistant", content: "Noted." });
  turns.push({ role: "user", content: "Hello" });
  return turns;
}

/**
 * `--sizes`: added p50 for a passthrough and a converted request per body size, one client; with
 * `--peer floor`, also the bare proxy's (relaying the bytes, no parse: the machine's share).
 */
async function bodySizes(upstreamPort: number, gw: Gateway, sizes: number[], seconds: number, rounds: number, warmup: number, floor?: Target) {
  const cells = sizes.map((bytes) => {
    const messages = conversation(bytes);
    const chat = (model: string) => () => JSON.stringify({ model, messages });
    return {
      bytes,
      targets: [
        { name: "direct" as string, origin: `http://127.0.0.1:${upstreamPort}`, path: "/v1/chat/completions", headers: { authorization: `Bearer ${UPSTREAM_KEY}` }, body: chat("bench-upstream") },
        { name: "passthrough", origin: gw.url, path: "/v1/chat/completions", headers: { authorization: `Bearer ${gw.key}` }, body: chat("bench-chat") },
        {
          name: "converted" as string,
          origin: gw.url,
          path: "/v1/messages",
          headers: { "x-api-key": gw.key, "anthropic-version": "2023-06-01" },
          body: () => JSON.stringify({ model: "bench-chat", max_tokens: 256, messages }),
        },
        ...(floor ? [{ ...floor, pid: undefined, body: chat("bench-upstream") }] : []),
      ] as Target[],
    };
  });
  // Warm, as the main table is: each body through each target before anything is measured.
  if (warmup > 0) for (const c of cells) for (const t of c.targets) await run(t, 1, false, warmup / 2);
  const results = new Map<string, Sample[]>();
  for (let r = 0; r < rounds; r++)
    for (const c of cells)
      for (const t of c.targets) {
        const k = `${c.bytes}|${t.name}`;
        results.set(k, [...(results.get(k) ?? []), await run(t, 1, false, seconds)]);
      }
  return cells.map((c) => {
    const p50 = (name: string) => pct(merge(results.get(`${c.bytes}|${name}`)!).latencies, 50);
    const body = Buffer.byteLength(c.targets[1]!.body(false));
    const direct = p50("direct");
    const added = (name: string) => +(p50(name) - direct).toFixed(2);
    const errors = c.targets.reduce((n, t) => n + merge(results.get(`${c.bytes}|${t.name}`)!).errors, 0);
    return {
      "body KB": Math.round(body / 1024),
      "direct p50 ms": +direct.toFixed(2),
      "passthrough added p50 ms": added("passthrough"),
      "converted added p50 ms": added("converted"),
      "passthrough added ms/MB": +((added("passthrough") * (1 << 20)) / body).toFixed(2),
      "converted added ms/MB": +((added("converted") * (1 << 20)) / body).toFixed(2),
      ...(floor ? { "floor added p50 ms": added("floor"), "floor added ms/MB": +((added("floor") * (1 << 20)) / body).toFixed(2) } : {}),
      errors,
    };
  });
}

/** Resident memory of a process in MB (Linux). */
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * A steady, open-loop load (`rate` requests a second, whatever the answers' latency) for
 * `seconds`, half plain and half streamed: errors, latency and the gateway's memory growth.
 */
async function soak(target: Target, pid: number, rate: number, seconds: number) {
  const pool = new Pool(target.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers = { "content-type": "application/json", ...target.headers };
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const rss: number[] = [rssMb(pid)];
  const inflight = new Set<Promise<void>>();
  const fire = (stream: boolean) => {
    const t0 = performance.now();
    const p = (async () => {
      try {
        const res = await pool.request({ method: "POST", path: target.path, headers, body: target.body(stream) });
        let text = "";
        for await (const c of res.body) text += c;
        if (res.statusCode !== 200 || (stream && !text.includes("[DONE]"))) errors++;
        else latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    })();
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  const start = performance.now();
  const end = start + seconds * 1000;
  let nextSample = start + 10_000;
  while (performance.now() < end) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (sent < due) fire(sent++ % 2 === 1);
    if (performance.now() >= nextSample) {
      rss.push(rssMb(pid));
      nextSample += 10_000;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(inflight);
  rss.push(rssMb(pid));
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    seconds,
    "target req/s": rate,
    sent,
    errors,
    "p50 ms": +pct(latencies, 50).toFixed(2),
    "p99 ms": +pct(latencies, 99).toFixed(2),
    "rss MB every 10 s": rss,
    "rss growth MB": +(rss.at(-1)! - rss[0]!).toFixed(1),
  };
}

/** Portkey's gateway (npm @portkey-ai/gateway) in front of the same upstream, when installed. */
async function startPortkey(upstreamPort: number, log: string): Promise<{ proc: ChildProcess; target: Target }> {
  // Installed beside the project (its zod 3 and hono stay out of our node_modules):
  //   npm install --prefix /tmp/portkey-peer @portkey-ai/gateway @hono/node-server@1.13.5
  const dir = process.env.PORTKEY_DIR ?? "/tmp/portkey-peer";
  const entry = [path.join(dir, "node_modules/@portkey-ai/gateway/build/start-server.js"), path.join(ROOT, "node_modules/@portkey-ai/gateway/build/start-server.js")].find((f) => fs.existsSync(f));
  if (!entry) throw new Error(`@portkey-ai/gateway not found under ${dir} (see docs/performance.md)`);
  const port = 18787 + Math.floor(Math.random() * 1000);
  // Portkey appends headers to the upstream's fetch Response, whose headers Node 20's fetch
  // makes immutable ("TypeError: immutable" on every stream): hand it mutable copies.
  const shim = path.join(path.dirname(log), "portkey-node20-shim.mjs");
  fs.writeFileSync(
    shim,
    "const f = globalThis.fetch; globalThis.fetch = async (...a) => { const r = await f(...a); " +
      "return new Response(r.body, { status: r.status, statusText: r.statusText, headers: new Headers(r.headers) }); };\n",
  );
  const proc = spawnLogged(pinned(1, [process.execPath, "--import", shim, entry, `--port=${port}`, "--headless"]), { ...process.env, NODE_ENV: "production" }, log);
  for (let i = 0; ; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      break;
    } catch {}
    if (i > 200) throw new Error("portkey did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = pidOnPort(port) ?? proc.pid!;
  return {
    proc,
    target: {
      name: "portkey",
      origin: `http://127.0.0.1:${port}`,
      path: "/v1/chat/completions",
      headers: { authorization: `Bearer ${UPSTREAM_KEY}`, "x-portkey-provider": "openai", "x-portkey-custom-host": `http://127.0.0.1:${upstreamPort}/v1` },
      body: upstreamChat,
      pid,
    },
  };
}

if (process.argv.includes("--serve-upstream")) serveUpstream();
else if (process.argv.includes("--serve-floor")) serveFloor(Number(process.argv[process.argv.indexOf("--serve-floor") + 1]));
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
