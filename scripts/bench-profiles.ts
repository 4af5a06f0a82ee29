/**
 * The bench's profiles (`npm run bench -- --profile NAME`), each a question an operator sizing a
 * deployment asks (issue 39; figures in docs/performance.md):
 *
 *   streams  1,000 long streams open at once through one instance (`--streams`, `--seconds` each,
 *            a token every `--pace-ms`): completion, exact billing, peak RSS, event-loop delay
 *            inside the gateway, database connections held, and a new request's added first
 *            event while they run against idle (`--probe-requests` idle ones; `--ramp-ms` to open them).
 *   agents   agent conversations of 50–200k tokens (tool calls and results, base64 images, half
 *            streamed; `--seed`, `--conversations`, `--rounds`): added p50/p99 per request against
 *            a direct call of the same body, for the bare proxy, passthrough and converted.
 *   next     the Next-only mount (`next start`, serverless mode as on Vercel) against the custom
 *            server on one database: process start → first answer (`--starts`), CPU per request.
 *   p99      one client, `--seconds` × `--rounds`: added p99 of the gateway and of the bare proxy,
 *            and the garbage collector's share (pauses inside the gateway, and how many of the
 *            slowest requests overlapped one).
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import zlib from "node:zlib";
import { Pool } from "undici";
import type { Gateway, Sample, Target } from "./bench";

export interface BenchKit {
  opt(name: string, def: string): string;
  startUpstream(log: string, extra?: string[]): Promise<{ port: number; proc: ChildProcess }>;
  startGateway(upstreamPort: number, log: string, share?: Gateway, cpu?: number, extra?: { env?: Record<string, string>; nodeArgs?: string[] }): Promise<Gateway>;
  startFloor(upstreamPort: number, log: string): Promise<{ proc: ChildProcess; target: Target }>;
  run(target: Target, clients: number, stream: boolean, seconds: number): Promise<Sample>;
  merge(samples: Sample[]): Sample;
  pct(sorted: number[], p: number): number;
  cpuMs(pid: number): number;
  rssMb(pid: number): number;
  pidOnPort(port: number): number | null;
  books(dbUrl: string, sent: number): Promise<Record<string, unknown>>;
  pinned(cpu: number, cmd: string[]): string[];
  spawnLogged(cmd: string[], env: NodeJS.ProcessEnv, log: string, pipeStdout?: boolean): ChildProcess;
  root: string;
  upstreamKey: string;
  hasTaskset: boolean;
}

type Profile = "streams" | "agents" | "next" | "p99";

export async function runProfile(name: Profile, kit: BenchKit): Promise<void> {
  const logDir = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), `gw-bench-${name}-`));
  console.log(`bench --profile ${name}: logs in ${logDir}; load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} on ${kit.hasTaskset ? "2+ cores (load generator cpu0, servers cpu1)" : "unpinned cores"}`);
  const result = await { streams, agents, next: nextMount, p99 }[name](kit, logDir);
  console.log(JSON.stringify(result, null, 2));
  const out = kit.opt("json", "");
  if (out) fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), profile: name, argv: process.argv.slice(2), ...result }, null, 2));
}

const ms = (n: number) => +n.toFixed(2);
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** The probe (scripts/bench-probe.mjs) preloaded into the gateway: event-loop delay and GC pauses, a line a second. */
function probe(logDir: string) {
  const file = path.join(logDir, "probe.jsonl");
  return {
    gateway: { env: { BENCH_PROBE_FILE: file }, nodeArgs: ["--import", pathToFileURL(path.join(import.meta.dirname, "bench-probe.mjs")).href] },
    /** Lines written between two wall-clock times (ms since the epoch). */
    read(from = 0, to = Infinity): { t: number; p50: number; p99: number; max: number; samples: number; gc: [number, number, number][] }[] {
      if (!fs.existsSync(file)) return [];
      return fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((l) => !l.window && l.t > from && l.t <= to + 1000);
    },
    /** Opens, then closes, the probe's window: every delay sample between the two calls in one histogram. */
    mark(pid: number) {
      process.kill(pid, "SIGUSR2");
    },
    /** The last closed window's delay (ms). */
    window(): { p50: number; p99: number; max: number; samples: number } | undefined {
      if (!fs.existsSync(file)) return undefined;
      return fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.includes('"window"'))
        .map((l) => JSON.parse(l).window)
        .at(-1);
    },
  };
}

/** One streamed request: time to its first content event and to its end, or an error. */
async function timedStream(pool: Pool, p: string, headers: Record<string, string>, body: string): Promise<{ first: number; total: number } | null> {
  const t0 = performance.now();
  try {
    const res = await pool.request({ method: "POST", path: p, headers: { "content-type": "application/json", ...headers }, body });
    let first = NaN;
    let text = "";
    for await (const c of res.body) {
      if (Number.isNaN(first)) first = performance.now() - t0;
      text += c;
    }
    return res.statusCode === 200 && text.includes("[DONE]") ? { first, total: performance.now() - t0 } : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- streams

async function streams(kit: BenchKit, logDir: string) {
  const count = Number(kit.opt("streams", "1000"));
  const seconds = Number(kit.opt("seconds", "60"));
  const paceMs = Number(kit.opt("pace-ms", "250"));
  const tokens = Math.round((seconds * 1000) / paceMs);
  const fdLimit = Number(fs.readFileSync("/proc/self/limits", "utf8").match(/Max open files\s+(\d+)/)?.[1] ?? 0);
  // Each stream is a socket in the load generator, two in the gateway (client and upstream) and one in the upstream.
  if (fdLimit && fdLimit < 2 * count + 256) throw new Error(`open-file limit ${fdLimit} is too low for ${count} streams (the gateway needs ~${2 * count + 256}): raise ulimit -n`);
  const pr = probe(logDir);
  const upstream = await kit.startUpstream(path.join(logDir, "upstream.log"), ["--pace-ms", String(paceMs), "--pace-tokens", String(tokens)]);
  const gw = await kit.startGateway(upstream.port, path.join(logDir, "gateway.log"), undefined, 1, pr.gateway);
  const gwLimit = Number(fs.readFileSync(`/proc/${gw.pid}/limits`, "utf8").match(/Max open files\s+(\d+)/)?.[1] ?? 0);
  const dbName = new URL(gw.dbUrl).pathname.slice(1);
  const pg = (await import("pg")).default;
  const watch = new pg.Client({ connectionString: gw.dbUrl });
  await watch.connect();
  const connections = async () =>
    (
      await watch.query(
        "select count(*)::int as total, count(*) filter (where state = 'active')::int as active, count(*) filter (where state like 'idle in transaction%')::int as in_tx from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [dbName],
      )
    ).rows[0] as { total: number; active: number; in_tx: number };

  // A new request's first event: gateway and direct alternated, a short streamed exchange each.
  const gwPool = new Pool(gw.url, { connections: 1, keepAliveTimeout: 60_000 });
  const directPool = new Pool(`http://127.0.0.1:${upstream.port}`, { connections: 1, keepAliveTimeout: 60_000 });
  let sent = 0;
  const probeFirstEvents = async (until: () => boolean, gap = 20) => {
    const gwFirst: number[] = [];
    const directFirst: number[] = [];
    let errors = 0;
    while (!until()) {
      sent++;
      const g = await timedStream(gwPool, "/v1/chat/completions", { authorization: `Bearer ${gw.key}` }, JSON.stringify({ model: "bench-chat", messages: [{ role: "user", content: "Hello" }], stream: true }));
      const d = await timedStream(directPool, "/v1/chat/completions", { authorization: `Bearer ${kit.upstreamKey}` }, JSON.stringify({ model: "bench-upstream", messages: [{ role: "user", content: "Hello" }], stream: true }));
      if (g && d) {
        gwFirst.push(g.first);
        directFirst.push(d.first);
      } else errors++;
      await sleep(gap);
    }
    gwFirst.sort((a, b) => a - b);
    directFirst.sort((a, b) => a - b);
    return {
      requests: gwFirst.length,
      errors,
      "added first event p50 ms": ms(kit.pct(gwFirst, 50) - kit.pct(directFirst, 50)),
      "added first event p99 ms": ms(kit.pct(gwFirst, 99) - kit.pct(directFirst, 99)),
      "gateway first event p50 / p99 ms": [ms(kit.pct(gwFirst, 50)), ms(kit.pct(gwFirst, 99))],
      "direct first event p50 / p99 ms": [ms(kit.pct(directFirst, 50)), ms(kit.pct(directFirst, 99))],
    };
  };
  const idleCount = Number(kit.opt("probe-requests", "200"));
  let n = 0;
  await probeFirstEvents(() => n++ >= 50); // warm-up
  n = 0;
  const idleFrom = Date.now();
  const idle = await probeFirstEvents(() => n++ >= idleCount);
  const idleConnections = await connections();
  const rssBefore = kit.rssMb(gw.pid);

  // The streams: opened over ~2 s (a burst of 1,000 connects overflows the listen backlog, which
  // is a SYN retry, not the gateway), each counted token by token.
  const pool = new Pool(gw.url, { connections: count, keepAliveTimeout: 120_000, bodyTimeout: 0, headersTimeout: 0, connect: { timeout: 120_000 } });
  const body = JSON.stringify({ model: "bench-paced", messages: [{ role: "user", content: "Think aloud for a minute." }], stream: true, stream_options: { include_usage: true } });
  const results: { ok: boolean; tokens: number; first: number; total: number; error?: string }[] = [];
  let open = 0;
  let maxOpen = 0;
  const one = async () => {
    sent++;
    const t0 = performance.now();
    let first = NaN;
    let got = 0;
    let done = false;
    let status = 0;
    let error: string | undefined;
    open++;
    maxOpen = Math.max(maxOpen, open);
    try {
      const res = await pool.request({ method: "POST", path: "/v1/chat/completions", headers: { "content-type": "application/json", authorization: `Bearer ${gw.key}` }, body });
      status = res.statusCode;
      let tail = "";
      for await (const c of res.body) {
        if (Number.isNaN(first)) first = performance.now() - t0;
        const text = tail + c;
        const cut = text.lastIndexOf("\n");
        for (const line of text.slice(0, cut + 1).split("\n")) {
          if (line.includes('"content":" tok"')) got++;
          else if (line.startsWith("data: [DONE]")) done = true;
        }
        tail = text.slice(cut + 1);
      }
    } catch (e) {
      error = `${status ? "after the head" : "before the head"}: ${(e as { code?: string }).code ?? (e as Error).message}`;
    }
    open--;
    const ok = status === 200 && done && got === tokens;
    results.push({ ok, tokens: got, first, total: performance.now() - t0, error: ok ? undefined : (error ?? `status ${status}, ${got} tokens, ${done ? "" : "no "}[DONE]`) });
  };
  const startedAt = Date.now();
  const cpuAtStart = kit.cpuMs(gw.pid);
  const all: Promise<void>[] = [];
  const rampMs = Number(kit.opt("ramp-ms", "2000"));
  for (let i = 0; i < count; i++) {
    all.push(one());
    if (i % 10 === 9) await sleep((rampMs * 10) / count);
  }
  const allDone = Promise.all(all);
  let finished = false;
  void allDone.then(() => (finished = true));
  // Memory and database connections every second while they run.
  const rss: number[] = [];
  const dbSamples: { total: number; active: number; in_tx: number }[] = [];
  const sampler = setInterval(() => {
    rss.push(kit.rssMb(gw.pid));
    void connections().then((c) => dbSamples.push(c), () => {});
  }, 1000);
  const settled = Date.now();
  pr.mark(gw.pid);
  // New requests while the streams run: until the first of them ends.
  const loaded = await probeFirstEvents(() => finished || results.length > 0);
  const loadedEnd = Date.now();
  pr.mark(gw.pid);
  await allDone;
  clearInterval(sampler);
  const endedAt = Date.now();
  const cpuSpent = kit.cpuMs(gw.pid) - cpuAtStart;
  const peakRss = Number(fs.readFileSync(`/proc/${gw.pid}/status`, "utf8").match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024;
  await sleep(1500);
  const eld = pr.read(settled, loadedEnd);
  const eldIdle = pr.read(idleFrom, startedAt);
  const totals = results.map((r) => r.total / 1000).sort((a, b) => a - b);
  const firsts = results.map((r) => r.first).sort((a, b) => a - b);

  // Billing, per stream: its own log row with exactly the tokens sent, and its charge.
  await gwPool.close();
  await directPool.close();
  await pool.close();
  await sleep(1000);
  const [paced] = (
    await watch.query(
      "select count(*)::int as rows, count(*) filter (where status = 200 and output_tokens = $1 and input_tokens = 9)::int as exact, coalesce(sum(cost_micro_usd), 0)::bigint as cost, count(distinct cost_micro_usd)::int as costs, min(cost_micro_usd)::bigint as each from request_logs where model = 'bench-paced'",
      [tokens],
    )
  ).rows;
  await watch.end();
  const books = await kit.books(gw.dbUrl, sent);
  await gw.drop();
  upstream.proc.kill("SIGTERM");
  const p99s = eld.map((l) => l.p99).sort((a, b) => a - b);
  return {
    setup: { streams: count, "seconds each": seconds, "token every ms": paceMs, "tokens each": tokens, "open-file limit (bench / gateway)": [fdLimit, gwLimit], "max open at once": maxOpen, "database pool size": Number(process.env.DATABASE_POOL_SIZE ?? 10) },
    streams: {
      completed: results.filter((r) => r.ok).length,
      failed: results.filter((r) => !r.ok).length,
      "failures by kind": results.filter((r) => !r.ok).reduce<Record<string, number>>((o, r) => ((o[r.error!] = (o[r.error!] ?? 0) + 1), o), {}),
      "first event p50 / p99 ms": [ms(kit.pct(firsts, 50)), ms(kit.pct(firsts, 99))],
      "duration p50 / max s": [ms(kit.pct(totals, 50)), ms(totals.at(-1) ?? NaN)],
      "wall s": ms((endedAt - startedAt) / 1000),
    },
    billing: { "log rows": paced.rows, "rows with exactly the tokens sent": paced.exact, "distinct charges": paced.costs, "charge each micro-USD": Number(paced.each), "total micro-USD": Number(paced.cost), expected: (9 * 1 + tokens * 2) * count, ...books },
    gateway: {
      "rss MB before / peak (VmHWM) / max sampled": [rssBefore, ms(peakRss), Math.max(...rss)],
      // CPU time, not wall time: steadier on a shared machine. A share near 1 means the process was CPU-bound.
      "cpu s while the streams ran / share of one core": [ms(cpuSpent / 1000), ms(cpuSpent / (endedAt - startedAt))],
      "cpu µs per relayed token (requests and probes included)": ms((cpuSpent * 1000) / (count * tokens)),
      "event-loop delay p99 ms, idle (worst second)": ms(Math.max(...eldIdle.map((l) => l.p99), 0)),
      "event-loop delay p99 ms while open: whole window / median second / worst second": [pr.window()?.p99 ?? NaN, ms(kit.pct(p99s, 50)), ms(p99s.at(-1) ?? NaN)],
      "event-loop delay max ms while open": ms(Math.max(...eld.map((l) => l.max), 0)),
      "gc pauses while open: count / total ms / longest ms": gcSummary(eld),
      "db connections idle (total/active/in tx)": idleConnections,
      "db connections while open, max (total/active/in tx)": {
        total: Math.max(...dbSamples.map((c) => c.total)),
        active: Math.max(...dbSamples.map((c) => c.active)),
        in_tx: Math.max(...dbSamples.map((c) => c.in_tx)),
      },
    },
    "new request, idle": idle,
    "new request, while the streams run": loaded,
  };
}

function gcSummary(lines: { gc: [number, number, number][] }[]) {
  const all = lines.flatMap((l) => l.gc);
  return [all.length, ms(all.reduce((n, g) => n + g[1], 0)), ms(Math.max(0, ...all.map((g) => g[1])))];
}

// ---------------------------------------------------------------- agents

/** A small seeded generator (mulberry32): the same seed, the same conversations. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]! };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
/** zlib.crc32 arrived in Node 22.2; the bench also runs on 20. */
function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A real PNG (noise, so it does not compress: base64 of about 4 × side² bytes). */
function png(side: number, r: ReturnType<typeof rng>): string {
  const raw = Buffer.alloc(side * (side * 3 + 1));
  for (let i = 0; i < raw.length; i++) raw[i] = i % (side * 3 + 1) === 0 ? 0 : Math.floor(r.next() * 256);
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(raw, { level: 0 })), chunk("IEND", Buffer.alloc(0))]).toString("base64");
}

type Turn = { kind: "user"; text: string; images: string[] } | { kind: "assistant"; text: string; calls: { id: string; name: string; args: Record<string, unknown> }[] } | { kind: "tool"; id: string; output: string };

const TOOLS = [
  { name: "read_file", description: "Read a file of the repository", params: { path: { type: "string" } } },
  { name: "run_command", description: "Run a shell command in the sandbox and return its output", params: { command: { type: "string" }, timeout_s: { type: "integer" } } },
  { name: "edit_file", description: "Replace a unique string in a file", params: { path: { type: "string" }, old: { type: "string" }, new: { type: "string" } } },
  { name: "search", description: "Search the repository for a regular expression", params: { pattern: { type: "string" }, glob: { type: "string" } } },
] as const;

const CODE = [
  'export async function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {\n  let size = 0;\n  const parts: Buffer[] = [];\n  for await (const c of req) {\n    size += c.length;\n    if (size > limit) throw new HttpError(413, "body too large");\n    parts.push(c);\n  }\n  return Buffer.concat(parts).toString("utf8");\n}\n',
  '  it("settles what it held", async () => {\n    const r = await post("/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "hi" }] });\n    expect(r.status).toBe(200);\n    expect(await held()).toBe(0);\n  });\n',
  'src/server.ts:42:7 - error TS2345: Argument of type \'string | undefined\' is not assignable to parameter of type \'string\'.\n\n42   handle(req.headers["x-request-id"]);\n         ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n',
  "FAIL  tests/billing.test.ts > settlement > charges once\nAssertionError: expected 2 to be 1 // Object.is equality\n    at tests/billing.test.ts:88:21\n",
  "drwxr-xr-x  5 dev dev  4096 Nov 28 10:02 lib\n-rw-r--r--  1 dev dev 18324 Nov 28 10:02 package-lock.json\n",
] as const;
const PROSE = ["The settlement runs twice when the stream is aborted; look at where the hold is returned and make it idempotent.", "Run the billing tests again and tell me which ones still fail.", "Here is a screenshot of the console after the change: the balance column is cut off.", "Good. Now make the same change in the Anthropic path and keep the error shape native."] as const;

/** An agent's conversation of about `targetTokens` tokens (≈ 4 bytes each in code and logs). */
function agentConversation(r: ReturnType<typeof rng>, targetTokens: number, n: number): Turn[] {
  const turns: Turn[] = [];
  let bytes = 0;
  let call = 0;
  const budget = targetTokens * 4;
  while (bytes < budget) {
    const images = r.next() < 0.25 ? Array.from({ length: r.int(1, 2) }, () => png(r.pick([64, 128, 192]), r)) : [];
    const text = r.pick(PROSE);
    turns.push({ kind: "user", text, images });
    // Images count as tokens by their size, not their bytes: a 128² image is ~100 tokens of budget.
    bytes += text.length + images.length * 400;
    for (let k = r.int(1, 4); k > 0 && bytes < budget; k--) {
      const tool = r.pick(TOOLS);
      const id = `toolu_bench${n}_${call++}`;
      const args = tool.name === "run_command" ? { command: "npx vitest run tests/billing.test.ts", timeout_s: 120 } : tool.name === "edit_file" ? { path: "lib/billing/settle.ts", old: CODE[0].slice(0, 80), new: CODE[0].slice(0, 90) } : { path: "lib/billing/settle.ts" };
      turns.push({ kind: "assistant", text: "Let me look.", calls: [{ id, name: tool.name, args }] });
      let output = "";
      const size = r.int(2_000, 40_000);
      while (output.length < size) output += r.pick(CODE);
      turns.push({ kind: "tool", id, output });
      bytes += output.length + 200;
    }
    turns.push({ kind: "assistant", text: "Done: the hold is returned once, and the test passes.", calls: [] });
  }
  turns.push({ kind: "user", text: "Continue.", images: [] });
  return turns;
}

function asChat(turns: Turn[], model: string, stream: boolean): string {
  const messages = turns.map((t) =>
    t.kind === "user"
      ? { role: "user", content: t.images.length ? [{ type: "text", text: t.text }, ...t.images.map((b) => ({ type: "image_url", image_url: { url: `data:image/png;base64,${b}` } }))] : t.text }
      : t.kind === "assistant"
        ? { role: "assistant", content: t.text, ...(t.calls.length ? { tool_calls: t.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })) } : {}) }
        : { role: "tool", tool_call_id: t.id, content: t.output },
  );
  const tools = TOOLS.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: { type: "object", properties: t.params, required: Object.keys(t.params).slice(0, 1) } } }));
  return JSON.stringify({ model, messages, tools, max_tokens: 4096, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });
}

function asMessages(turns: Turn[], model: string, stream: boolean): string {
  const messages: { role: string; content: unknown[] }[] = [];
  const push = (role: string, block: unknown) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const t of turns) {
    if (t.kind === "user") {
      for (const b of t.images) push("user", { type: "image", source: { type: "base64", media_type: "image/png", data: b } });
      push("user", { type: "text", text: t.text });
    } else if (t.kind === "assistant") {
      push("assistant", { type: "text", text: t.text });
      for (const c of t.calls) push("assistant", { type: "tool_use", id: c.id, name: c.name, input: c.args });
    } else push("user", { type: "tool_result", tool_use_id: t.id, content: t.output });
  }
  const tools = TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: { type: "object", properties: t.params, required: Object.keys(t.params).slice(0, 1) } }));
  return JSON.stringify({ model, max_tokens: 4096, system: "You are a coding agent working in a repository.", messages, tools, ...(stream ? { stream: true } : {}) });
}

async function agents(kit: BenchKit, logDir: string) {
  const seed = Number(kit.opt("seed", "39"));
  const conversations = Number(kit.opt("conversations", "24"));
  const rounds = Number(kit.opt("rounds", "3"));
  const r = rng(seed);
  const cases = Array.from({ length: conversations }, (_, i) => {
    const tokens = r.int(50_000, 200_000);
    const turns = agentConversation(r, tokens, i);
    const stream = i % 2 === 1;
    return { tokens, stream, turns, images: turns.reduce((n, t) => n + (t.kind === "user" ? t.images.length : 0), 0) };
  });
  const upstream = await kit.startUpstream(path.join(logDir, "upstream.log"));
  const gw = await kit.startGateway(upstream.port, path.join(logDir, "gateway.log"));
  const floor = await kit.startFloor(upstream.port, path.join(logDir, "floor.log"));
  const origins = { direct: `http://127.0.0.1:${upstream.port}`, floor: floor.target.origin, passthrough: gw.url, converted: gw.url };
  const pools = Object.fromEntries(Object.entries(origins).map(([k, o]) => [k, new Pool(o, { connections: 1, keepAliveTimeout: 60_000, bodyTimeout: 0 })])) as Record<keyof typeof origins, Pool>;
  const bodies = cases.map((c) => ({
    chat: asChat(c.turns, "bench-upstream", c.stream),
    passthrough: asChat(c.turns, "bench-agent", c.stream),
    converted: asMessages(c.turns, "bench-agent", c.stream),
  }));
  let sent = 0;
  const send = async (name: keyof typeof origins, i: number) => {
    const c = cases[i]!;
    const b = bodies[i]!;
    const t0 = performance.now();
    const headers: Record<string, string> =
      name === "direct" || name === "floor" ? { authorization: `Bearer ${kit.upstreamKey}` } : name === "passthrough" ? { authorization: `Bearer ${gw.key}` } : { "x-api-key": gw.key, "anthropic-version": "2023-06-01" };
    if (name === "passthrough" || name === "converted") sent++;
    const res = await pools[name].request({ method: "POST", path: name === "converted" ? "/v1/messages" : "/v1/chat/completions", headers: { "content-type": "application/json", ...headers }, body: name === "converted" ? b.converted : name === "passthrough" ? b.passthrough : b.chat });
    let first = NaN;
    let text = "";
    for await (const chunk of res.body) {
      if (Number.isNaN(first)) first = performance.now() - t0;
      text += chunk;
    }
    if (res.statusCode !== 200) throw new Error(`${name} conversation ${i}: ${res.statusCode} ${text.slice(0, 300)}`);
    if (c.stream && !(text.includes("[DONE]") || text.includes("message_stop"))) throw new Error(`${name} conversation ${i}: the stream did not end`);
    return { total: performance.now() - t0, first };
  };
  const names = ["direct", "floor", "passthrough", "converted"] as const;
  // Warm-up: every body once through every target.
  for (let i = 0; i < cases.length; i++) for (const n of names) await send(n, i);
  const added: Record<string, number[]> = { floor: [], passthrough: [], converted: [] };
  const addedFirst: Record<string, number[]> = { floor: [], passthrough: [], converted: [] };
  const direct: number[] = [];
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < cases.length; i++) {
      // The direct call of the same body right before each target: the added time is the pair's difference.
      for (const n of ["floor", "passthrough", "converted"] as const) {
        const d = await send("direct", i);
        const t = await send(n, i);
        direct.push(d.total);
        added[n]!.push(t.total - d.total);
        if (cases[i]!.stream) addedFirst[n]!.push(t.first - d.first);
      }
    }
  for (const p of Object.values(pools)) await p.close();
  await sleep(700);
  const books = await kit.books(gw.dbUrl, sent);
  floor.proc.kill("SIGTERM");
  await gw.drop();
  upstream.proc.kill("SIGTERM");
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const row = (n: string) => {
    const a = sorted(added[n]!);
    const f = sorted(addedFirst[n]!);
    return { "added p50 ms": ms(kit.pct(a, 50)), "added p99 ms": ms(kit.pct(a, 99)), "added first event p50 ms (streamed half)": ms(kit.pct(f, 50)), requests: a.length };
  };
  const sizes = sorted(bodies.map((b) => b.passthrough.length / 1024));
  const result = {
    setup: {
      seed,
      conversations,
      rounds,
      "tokens (target) min / median / max": [Math.min(...cases.map((c) => c.tokens)), kit.pct(sorted(cases.map((c) => c.tokens)), 50), Math.max(...cases.map((c) => c.tokens))],
      "chat body KB min / median / max": [Math.round(sizes[0]!), Math.round(kit.pct(sizes, 50)), Math.round(sizes.at(-1)!)],
      images: cases.reduce((n, c) => n + c.images, 0),
      "tool results": cases.reduce((n, c) => n + c.turns.filter((t) => t.kind === "tool").length, 0),
      streamed: cases.filter((c) => c.stream).length,
    },
    "direct p50 / p99 ms": [ms(kit.pct(sorted(direct), 50)), ms(kit.pct(sorted(direct), 99))],
    floor: row("floor"),
    passthrough: row("passthrough"),
    converted: row("converted"),
    "ratio to the floor, added p50 (passthrough / converted)": [ms(kit.pct(sorted(added.passthrough!), 50) / kit.pct(sorted(added.floor!), 50)), ms(kit.pct(sorted(added.converted!), 50) / kit.pct(sorted(added.floor!), 50))],
    books,
  };
  return result;
}

// ---------------------------------------------------------------- next

/** The Next-only mount against the custom server: process start → first answer, then CPU per request. */
async function nextMount(kit: BenchKit, logDir: string) {
  const starts = Number(kit.opt("starts", "3"));
  const requests = Number(kit.opt("requests", "300"));
  const serverless = kit.opt("serverless", "on") !== "off";
  const upstream = await kit.startUpstream(path.join(logDir, "upstream.log"));
  // The custom server migrates the database, applies the config and creates the key: for the
  // Next mount that is the deploy step (`npm run db:migrate` in vercel.json's build command).
  const gw = await kit.startGateway(upstream.port, path.join(logDir, "gateway.log"));
  const nextBin = path.join(kit.root, "node_modules/next/dist/bin/next");
  const env = (port: number): NodeJS.ProcessEnv => ({
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    DATABASE_URL: gw.dbUrl,
    GATEWAY_CONFIG: path.join(gw.dataDir, "gateway.config.json"),
    DATA_DIR: fs.mkdtempSync(path.join(logDir, "next-data-")),
    ENCRYPTION_KEY: gw.encryptionKey,
    PUBLIC_BASE_URL: `http://localhost:${port}`,
    LOG_LEVEL: "warn",
    DEFAULT_KEY_RPM: "100000000",
    ...(serverless ? { SERVERLESS: "1" } : {}),
  });
  const chat = JSON.stringify({ model: "bench-chat", messages: [{ role: "user", content: "Hello" }] });
  const post = (origin: string) => fetch(`${origin}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${gw.key}` }, body: chat });
  const freePort = () =>
    new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
  const cold: { "listening s": number; "first answer s": number }[] = [];
  let warm: { proc: ChildProcess; origin: string; pid: number } | null = null;
  for (let i = 0; i < starts; i++) {
    const port = await freePort();
    const log = path.join(logDir, `next-${i}.log`);
    const t0 = performance.now();
    const proc = kit.spawnLogged(kit.pinned(1, [process.execPath, nextBin, "start", "-p", String(port), "-H", "127.0.0.1"]), env(port), log);
    const origin = `http://127.0.0.1:${port}`;
    // Listening (Next's own boot) is told apart from the first answer (the route's code, the
    // preparation, the request) by a bare TCP connect.
    const canConnect = () =>
      new Promise<boolean>((resolve) => {
        const sock = net.connect(port, "127.0.0.1");
        sock.once("connect", () => (sock.destroy(), resolve(true)));
        sock.once("error", () => resolve(false));
      });
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`next start exited; see ${log}`);
      if (performance.now() - t0 > 60_000) throw new Error(`next start did not listen in 60 s; see ${log}`);
      if (await canConnect()) break;
      await sleep(5);
    }
    const listening = performance.now() - t0;
    const r = await post(origin);
    const text = await r.text();
    if (r.status !== 200) throw new Error(`next mount answered ${r.status}: ${text.slice(0, 300)}`);
    cold.push({ "listening s": ms(listening / 1000), "first answer s": ms((performance.now() - t0) / 1000) });
    if (i < starts - 1) {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
    } else warm = { proc, origin, pid: kit.pidOnPort(port) ?? proc.pid! };
  }
  // CPU per request: sequential non-streamed requests, the two servers alternated by round.
  const cpu: Record<string, number[]> = { custom: [], next: [] };
  const lat: Record<string, number[]> = { custom: [], next: [] };
  const servers = { custom: { origin: gw.url, pid: gw.pid }, next: { origin: warm!.origin, pid: warm!.pid } };
  let sent = cold.length;
  for (let round = 0; round < 4; round++)
    for (const [name, s] of Object.entries(servers)) {
      const pool = new Pool(s.origin, { connections: 1, keepAliveTimeout: 60_000 });
      const one = async () => {
        sent++;
        const t = performance.now();
        const r = await pool.request({ method: "POST", path: "/v1/chat/completions", headers: { "content-type": "application/json", authorization: `Bearer ${gw.key}` }, body: chat });
        await r.body.text();
        if (r.statusCode !== 200) throw new Error(`${name}: ${r.statusCode}`);
        return performance.now() - t;
      };
      for (let i = 0; i < 100; i++) await one();
      const c0 = kit.cpuMs(s.pid);
      for (let i = 0; i < requests; i++) lat[name]!.push(await one());
      cpu[name]!.push((kit.cpuMs(s.pid) - c0) / requests);
      await pool.close();
    }
  await sleep(1000);
  const books = await kit.books(gw.dbUrl, sent);
  const exited = new Promise((r) => warm!.proc.once("exit", r));
  warm!.proc.kill("SIGTERM");
  await exited;
  await gw.drop();
  upstream.proc.kill("SIGTERM");
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const median = (xs: number[]) => kit.pct(sorted(xs), 50);
  return {
    setup: { serverless, starts, "requests per round": requests, rounds: 4 },
    "cold starts (process start → listening, → first 200 chat completion)": cold,
    "CPU ms per request, per round": { custom: cpu.custom!.map(ms), next: cpu.next!.map(ms) },
    "CPU ratio next / custom (medians)": ms(median(cpu.next!) / median(cpu.custom!)),
    "latency p50 / p99 ms": { custom: [ms(kit.pct(sorted(lat.custom!), 50)), ms(kit.pct(sorted(lat.custom!), 99))], next: [ms(kit.pct(sorted(lat.next!), 50)), ms(kit.pct(sorted(lat.next!), 99))] },
    books,
  };
}

// ---------------------------------------------------------------- p99

/** One client: the gateway's and the bare proxy's added p99, with GC pauses inside the gateway lined up against the slow requests. */
async function p99(kit: BenchKit, logDir: string) {
  const seconds = Number(kit.opt("seconds", "5"));
  const rounds = Number(kit.opt("rounds", "4"));
  const pr = probe(logDir);
  const upstream = await kit.startUpstream(path.join(logDir, "upstream.log"));
  const gw = await kit.startGateway(upstream.port, path.join(logDir, "gateway.log"), undefined, 1, pr.gateway);
  const floor = await kit.startFloor(upstream.port, path.join(logDir, "floor.log"));
  const direct: Target = { name: "direct", origin: `http://127.0.0.1:${upstream.port}`, path: "/v1/chat/completions", headers: { authorization: `Bearer ${kit.upstreamKey}` }, body: floor.target.body };
  const gateway: Target = {
    name: "gateway",
    origin: gw.url,
    path: "/v1/chat/completions",
    headers: { authorization: `Bearer ${gw.key}` },
    body: (stream) => JSON.stringify({ model: "bench-chat", messages: [{ role: "user", content: "Hello" }], ...(stream ? { stream: true } : {}) }),
    pid: gw.pid,
  };
  const targets = [direct, gateway, floor.target];
  // Requests with their wall-clock span, to line the slow ones up against the GC pauses.
  const spans: { target: string; mode: string; start: number; ms: number }[] = [];
  let sent = 0;
  for (const stream of [false, true]) for (const t of targets) await run(t, stream, 2); // warm-up
  spans.length = 0;
  const from = Date.now();
  for (let r = 0; r < rounds; r++) for (const stream of [false, true]) for (const t of targets) await run(t, stream, seconds);
  const to = Date.now();
  await sleep(1500);
  const gcs = pr.read(from, to).flatMap((l) => l.gc).filter((g) => g[0] >= from && g[0] <= to);
  const books = await kit.books(gw.dbUrl, sent);
  floor.proc.kill("SIGTERM");
  await gw.drop();
  upstream.proc.kill("SIGTERM");

  async function run(t: Target, stream: boolean, secs: number) {
    const pool = new Pool(t.origin, { connections: 1, keepAliveTimeout: 60_000 });
    const body = t.body(stream);
    const end = performance.now() + secs * 1000;
    while (performance.now() < end) {
      if (t === gateway) sent++;
      const wall = performance.timeOrigin + performance.now();
      const t0 = performance.now();
      const res = await pool.request({ method: "POST", path: t.path, headers: { "content-type": "application/json", ...t.headers }, body });
      await res.body.text();
      spans.push({ target: t.name, mode: stream ? "stream" : "plain", start: wall, ms: performance.now() - t0 });
    }
    await pool.close();
  }

  const out: Record<string, unknown> = {};
  const gcTotal = gcs.reduce((n, g) => n + g[1], 0);
  const gatewayWall = spans.filter((s) => s.target === "gateway").reduce((n, s) => n + s.ms, 0);
  for (const mode of ["plain", "stream"]) {
    const of = (name: string) => spans.filter((s) => s.target === name && s.mode === mode);
    const sortedMs = (name: string) => of(name).map((s) => s.ms).sort((a, b) => a - b);
    const d = sortedMs("direct");
    const g = sortedMs("gateway");
    const f = sortedMs("floor");
    const gwP99 = kit.pct(g, 99);
    // The slowest 1 % of gateway requests: how many had a GC pause inside them, and what share of their time it was.
    const slow = of("gateway").filter((s) => s.ms >= gwP99);
    const overlap = (s: { start: number; ms: number }) => gcs.filter((x) => x[0] < s.start + s.ms && x[0] + x[1] > s.start).reduce((n, x) => n + Math.min(x[0] + x[1], s.start + s.ms) - Math.max(x[0], s.start), 0);
    const slowWithGc = slow.filter((s) => overlap(s) > 0);
    out[mode] = {
      requests: { direct: d.length, gateway: g.length, floor: f.length },
      "direct p50 / p99 ms": [ms(kit.pct(d, 50)), ms(kit.pct(d, 99))],
      "gateway added p50 / p99 ms": [ms(kit.pct(g, 50) - kit.pct(d, 50)), ms(gwP99 - kit.pct(d, 99))],
      "floor added p50 / p99 ms": [ms(kit.pct(f, 50) - kit.pct(d, 50)), ms(kit.pct(f, 99) - kit.pct(d, 99))],
      "added p99 ratio gateway / floor": ms((gwP99 - kit.pct(d, 99)) / (kit.pct(f, 99) - kit.pct(d, 99))),
      "slowest 1 % of gateway requests: count / with a GC pause inside / GC share of their time": [slow.length, slowWithGc.length, ms(slow.reduce((n, s) => n + overlap(s), 0) / Math.max(1e-9, slow.reduce((n, s) => n + s.ms, 0)))],
    };
  }
  out.gc = {
    "pauses in the measured window": gcs.length,
    "total ms": ms(gcTotal),
    "p50 / p99 / max pause ms": (() => {
      const d = gcs.map((g) => g[1]).sort((a, b) => a - b);
      return [ms(kit.pct(d, 50)), ms(kit.pct(d, 99)), ms(d.at(-1) ?? 0)];
    })(),
    "share of the gateway requests' time": ms(gcTotal / Math.max(1e-9, gatewayWall)),
    "by kind (1 minor, 2 major, 4 incremental, 8 weak callbacks)": gcs.reduce<Record<string, number>>((o, g) => ((o[g[2]] = (o[g[2]] ?? 0) + 1), o), {}),
  };
  out.books = books;
  return out;
}
