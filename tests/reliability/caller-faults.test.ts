/**
 * One caller cannot open an upstream's circuit for everyone (docs/reliability.md, "Callers'
 * faults and the circuit"; decision 0035). Two instances on one PostgreSQL and one Redis, one
 * model on one upstream (so an open circuit means 503 for everybody). One account sends 50
 * requests the upstream fails — 429 "request too large", 500 on a poison input, timeouts of a
 * long non-streamed generation — on both instances; another account's normal request is still
 * served on both, and the circuit stays closed. Then a genuine outage: several accounts fail,
 * and the circuit opens on both instances (503 + Retry-After at once).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultUpstream, type FaultUpstream } from "../fakes/fault-upstream";
import { createAccount } from "../support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

const REDIS = "redis://127.0.0.1:6379/11";
const METRICS = "caller-faults-metrics";
const MODEL = "solo-chat";
let a: TestServer;
let b: TestServer;
let up: FaultUpstream;

beforeAll(async () => {
  if (!usesPostgres()) throw new Error("this test needs PostgreSQL (DATABASE_URL) and Redis on 127.0.0.1:6379");
  const redis = new Redis(REDIS);
  await redis.flushdb();
  await redis.quit();
  up = await startFaultUpstream("sk-caller-faults-upstream");
  // A poison input the upstream chokes on, a generation too long to wait for, a max_tokens over its per-request limit.
  up.choose = (body) => {
    const text = JSON.stringify(body?.messages ?? "");
    if (text.includes("choke")) return { kind: "status", status: 500 };
    if (text.includes("write a novel")) return { kind: "hang" };
    if (Number(body?.max_tokens) > 30_000) return { kind: "too-large" };
    return undefined;
  };
  const config = {
    upstreams: [{ id: "u", protocol: "openai", baseUrl: `${up.url}/v1`, apiKey: up.key, timeoutMs: 300 }],
    models: [{ id: MODEL, kind: "text", upstream: "u", price: { inputPerMTok: 1, outputPerMTok: 2 } }],
  };
  // The default UPSTREAM_HEALTH_MIN_CALLERS (3); a long cool-down, so an opened circuit stays open for the test.
  const env = { REDIS_URL: REDIS, METRICS_TOKEN: METRICS, DEFAULT_KEY_RPM: "100000", UPSTREAM_HEALTH_WINDOW_S: "30", UPSTREAM_HEALTH_MIN_REQUESTS: "6", UPSTREAM_HEALTH_ERROR_PERCENT: "50", UPSTREAM_HEALTH_COOLDOWN_S: "60" };
  a = await startTestServer({ config, env });
  b = await startTestServer({ config, env, shareWith: a });
}, 240_000);
afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
  await up?.close();
});

let n = 0;
async function chat(server: TestServer, key: string, content: string, extra: Record<string, unknown> = {}) {
  const r = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: `${content} ${n++}` }], max_tokens: 16, ...extra }),
  });
  await r.arrayBuffer();
  return { status: r.status, retryAfter: r.headers.get("retry-after") };
}

async function circuitState(server: TestServer): Promise<number | null> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
  const m = new RegExp(`^gateway_upstream_circuit_state\\{model="${MODEL}",upstream="u"\\} (\\d)`, "m").exec(text);
  return m ? Number(m[1]) : null;
}

/** `count` requests, 10 at a time, alternating between the instances. */
async function flood(count: number, one: (server: TestServer, i: number) => Promise<{ status: number }>) {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let i = next++; i < count; i = next++) statuses.push((await one(i % 2 ? b : a, i)).status);
    }),
  );
  return statuses;
}

describe("a caller's own failures", () => {
  it("50 failing requests from one account leave another account's request at 200 on both instances", async () => {
    const attacker = await createAccount(a, { usd: 5 });
    const victim = await createAccount(a, { usd: 5 });
    const started = performance.now();
    const kinds = [
      (s: TestServer) => chat(s, attacker.key, "hello", { max_tokens: 100_000 }),
      (s: TestServer) => chat(s, attacker.key, "choke on this"),
      (s: TestServer) => chat(s, attacker.key, "write a novel"),
    ];
    const statuses = await flood(50, (s, i) => kinds[i % 3]!(s));
    const attackMs = performance.now() - started;
    expect(statuses.every((s) => s >= 400)).toBe(true);
    await new Promise((r) => setTimeout(r, 1500)); // a shared-store round on each instance
    for (const s of [a, b]) expect((await chat(s, victim.key, "hi")).status).toBe(200);
    expect([await circuitState(a), await circuitState(b)]).toEqual([0, 0]);
    console.log(`caller faults: 50 attacker requests in ${Math.round(attackMs)} ms (statuses ${[...new Set(statuses)].join("/")}); victim 200 on both instances; circuit closed`);
  }, 120_000);

  it("a genuine outage (failures from several accounts) still opens the circuit on both instances", async () => {
    const callers = await Promise.all([0, 1, 2].map(() => createAccount(a, { usd: 5 })));
    const later = await createAccount(a, { usd: 5 });
    up.reset({ kind: "status", status: 500 });
    await flood(12, (s, i) => chat(s, callers[i % 3]!.key, "hi"));
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && ((await circuitState(a)) !== 2 || (await circuitState(b)) !== 2)) await new Promise((r) => setTimeout(r, 200));
    expect([await circuitState(a), await circuitState(b)]).toEqual([2, 2]); // 2 = open
    for (const s of [a, b]) {
      const r = await chat(s, later.key, "hi");
      expect(r.status).toBe(503);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    up.reset();
  }, 120_000);
});
