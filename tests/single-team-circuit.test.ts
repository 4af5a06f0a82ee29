/**
 * One team on its own gateway (decision 0035, "possible callers"): with the default
 * UPSTREAM_HEALTH_MIN_CALLERS (3) and a single organisation holding keys, an upstream that fails
 * every request still gets its circuit opened by that organisation's failures — the next request
 * is answered 503 with Retry-After at once instead of waiting on a dead upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultUpstream, type FaultUpstream } from "./fakes/fault-upstream";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

const MODEL = "team-chat";
let server: TestServer;
let up: FaultUpstream;

beforeAll(async () => {
  up = await startFaultUpstream("sk-single-team-upstream");
  const config = {
    upstreams: [{ id: "u", protocol: "openai", baseUrl: `${up.url}/v1`, apiKey: up.key, timeoutMs: 2000 }],
    models: [{ id: MODEL, kind: "text", upstream: "u", price: { inputPerMTok: 1, outputPerMTok: 2 } }],
  };
  server = await startTestServer({
    config,
    env: { DEFAULT_KEY_RPM: "100000", UPSTREAM_HEALTH_WINDOW_S: "30", UPSTREAM_HEALTH_MIN_REQUESTS: "6", UPSTREAM_HEALTH_COOLDOWN_S: "60" },
  });
}, 240_000);
afterAll(async () => {
  await server?.dispose();
  await up?.close();
});

async function chat(key: string) {
  const r = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 8 }),
  });
  await r.arrayBuffer();
  return { status: r.status, retryAfter: r.headers.get("retry-after") };
}

describe("a single-organisation gateway", () => {
  it("opens the circuit on its one organisation's failures at the default caller minimum", async () => {
    const team = await createAccount(server, { usd: 5 });
    up.reset({ kind: "status", status: 500 });
    const seen: number[] = [];
    let last = await chat(team.key);
    for (let i = 0; i < 30 && last.status !== 503; i++) {
      seen.push(last.status);
      last = await chat(team.key);
    }
    expect(last.status).toBe(503);
    expect(Number(last.retryAfter)).toBeGreaterThan(0);
    const calls = up.hits.length;
    expect((await chat(team.key)).status).toBe(503); // refused without calling the dead upstream
    expect(up.hits.length).toBe(calls);
    expect(seen.length).toBeLessThan(30);
    up.reset();
  }, 120_000);
});
