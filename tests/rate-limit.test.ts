/**
 * Per-key and per-account request limits: 429 with the spec's envelope and Retry-After, the
 * x-ratelimit-* headers on every response, shared across instances through Redis, and failing
 * open (counted in /metrics) when Redis is down.
 */
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createAccount } from "./support/accounts";
import { freePort, startTestServer, type TestServer } from "./support/server";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers.reverse()) await s.dispose();
});
async function start(...args: Parameters<typeof startTestServer>) {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
}
const models = (s: TestServer, key: string) => fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });

async function redisUp(): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(6379, "127.0.0.1", () => {
      sock.end();
      resolve(true);
    });
    sock.on("error", () => resolve(false));
  });
}

describe("rate limits", () => {
  it("refuses the request past a key's limit with 429, Retry-After and the headers", async () => {
    const s = await start();
    const { key } = await createAccount(s, { keyArgs: ["--rpm", "3"] });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await models(s, key));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]!.headers.get("x-ratelimit-limit-requests")).toBe("3");
    expect(answers[0]!.headers.get("x-ratelimit-remaining-requests")).toBe("2");
    expect(answers[0]!.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/);
    const limited = answers[3]!;
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-should-retry")).toBeNull();
    expect((await limited.json()).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    // Another key of another account is not affected.
    const other = await createAccount(s);
    const r = await models(s, other.key);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-ratelimit-limit-requests")).toBe("600"); // DEFAULT_KEY_RPM
  });

  it("shares the count between two instances through Redis", async () => {
    if (!(await redisUp())) throw new Error("Redis must run on 127.0.0.1:6379 for this test (.ci/run starts it)");
    const a = await start({ env: { REDIS_URL: "redis://127.0.0.1:6379/0" } });
    const b = a.databaseUrl ? await start({ shareWith: a, env: { REDIS_URL: "redis://127.0.0.1:6379/0" } }) : a;
    const { key } = await createAccount(a, { keyArgs: ["--rpm", "4"] });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await models(i % 2 ? b : a, key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it("fails open when Redis is unreachable, and counts it in /metrics", async () => {
    const deadPort = await freePort();
    const s = await start({ env: { REDIS_URL: `redis://127.0.0.1:${deadPort}/0`, METRICS_TOKEN: "metrics-test-token" } });
    const { key } = await createAccount(s, { keyArgs: ["--rpm", "1"] });
    for (let i = 0; i < 3; i++) expect((await models(s, key)).status).toBe(200);
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
    const m = await fetch(`${s.url}/metrics`, { headers: { authorization: "Bearer metrics-test-token" } });
    expect(m.status).toBe(200);
    const text = await m.text();
    expect(text).toMatch(/gateway_rate_limit_fail_open_total \d+/);
    expect(Number(/gateway_rate_limit_fail_open_total (\d+)/.exec(text)![1])).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/gateway_requests_total\{route="\/v1\/models",model="",status="200"\} \d+/);
  });
});
