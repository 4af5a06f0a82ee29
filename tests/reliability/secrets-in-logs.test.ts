/**
 * Secrets never reach a log: a canary API key, canary upstream key, canary Stripe secrets,
 * webhook secret and a canary prompt go through success and failure paths of every route at
 * the most verbose log level; then the log file and every log table are searched. (Every other
 * integration test also checks its server's log for the keys and credentials it used: see
 * tests/support/server.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { createAccount } from "../support/accounts";
import { freePort, startTestServer, type TestServer } from "../support/server";

const CANARY_PROMPT = "CANARY-PROMPT-7f3a9c-do-not-log";
const CANARY_UPSTREAM_KEY = "sk-CANARY-upstream-5d1e8b2c";
const CANARY_DEAD_UPSTREAM_KEY = "sk-CANARY-dead-upstream-91ab";
const CANARY_STRIPE_SECRET = "sk_test_CANARY_stripe_4c2d8e";
const CANARY_STRIPE_WEBHOOK = "whsec_CANARY_6e0f1a";
const CANARY_WEBHOOK_SECRET = "CANARY-webhook-secret-3b7c";
const CANARY_BAD_KEY = `sk-CANARY${"x".repeat(37)}`;

let server: TestServer;
let upstream: FakeTextUpstream;
let key: string;

beforeAll(async () => {
  upstream = await startFakeOpenAI(CANARY_UPSTREAM_KEY);
  const dead = await freePort();
  server = await startTestServer({
    env: { LOG_LEVEL: "trace", STRIPE_SECRET_KEY: CANARY_STRIPE_SECRET, STRIPE_WEBHOOK_SECRET: CANARY_STRIPE_WEBHOOK },
    config: {
      upstreams: [
        { id: "oa", protocol: "openai", baseUrl: upstream.baseUrl, apiKey: CANARY_UPSTREAM_KEY },
        { id: "dead", protocol: "openai", baseUrl: `http://127.0.0.1:${dead}/v1`, apiKey: CANARY_DEAD_UPSTREAM_KEY, timeoutMs: 2000 },
        { id: "demo", protocol: "demo" },
      ],
      models: [
        { id: "chat-live", kind: "text", upstream: "oa", price: { inputPerMTok: 1, outputPerMTok: 2 } },
        { id: "chat-dead", kind: "text", upstream: "dead", price: { inputPerMTok: 1, outputPerMTok: 2 } },
        { id: "demo-embed", kind: "embedding", upstream: "demo", price: { inputPerMTok: 0.02 } },
        { id: "demo-image", kind: "image", upstream: "demo", price: { perImage: { "*": 0.02 } } },
        { id: "demo-video", kind: "video", family: "t2v", upstream: "demo", price: { perVideo: 0.25 } },
      ],
    },
  });
  ({ key } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  await server?.dispose();
  await upstream?.close();
});

const call = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));
const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: CANARY_PROMPT }], ...extra });

describe("secrets in logs", () => {
  it("leaves no canary in the log file or any log table", async () => {
    const outcomes = [
      await call("/v1/chat/completions", chat("chat-live")),
      await call("/v1/chat/completions", chat("chat-live", { stream: true })),
      await call("/v1/chat/completions", chat("chat-dead")),
      await call("/v1/chat/completions", chat("chat-live", { temperature: "hot" })),
      await call("/v1/chat/completions", chat("no-such-model")),
      await call("/v1/chat/completions", chat("chat-live"), { authorization: `Bearer ${CANARY_BAD_KEY}` }),
      await call("/v1/messages", { ...chat("chat-live"), max_tokens: 20 }, { "x-api-key": key }),
      await call("/v1/messages", { ...chat("chat-live"), max_tokens: 20 }, { "x-api-key": CANARY_BAD_KEY }),
      await call(`/v1beta/models/chat-live:generateContent?key=${key}`, { contents: [{ parts: [{ text: CANARY_PROMPT }] }] }, {}),
      await call(`/v1beta/models/chat-live:streamGenerateContent?alt=sse&key=${key}`, { contents: [{ parts: [{ text: CANARY_PROMPT }] }] }, {}),
      await call(`/v1beta/models/chat-live:generateContent?key=${CANARY_BAD_KEY}`, { contents: [{ parts: [{ text: CANARY_PROMPT }] }] }, {}),
      await call("/v1/responses", { model: "chat-live", input: CANARY_PROMPT }),
      await call("/v1/embeddings", { model: "demo-embed", input: CANARY_PROMPT }),
      await call("/v1/embeddings", { model: "demo-embed", input: [CANARY_PROMPT, 5] }),
      await call("/v1/images/generations", { model: "demo-image", prompt: CANARY_PROMPT }),
      await call("/v1/images/generations", { model: "demo-image", prompt: CANARY_PROMPT, n: 3 }),
      await call("/v1/videos", { model: "demo-video", prompt: CANARY_PROMPT, seconds: "10", webhook: "https://example.com/hook", webhook_secret: CANARY_WEBHOOK_SECRET }),
      await call("/v1/videos", { model: "demo-video", prompt: CANARY_PROMPT, seconds: "7", webhook_secret: CANARY_WEBHOOK_SECRET }),
      await call("/v1/videos", { model: "demo-video", prompt: CANARY_PROMPT, seconds: "10", webhook: `http://127.0.0.1:1/${CANARY_WEBHOOK_SECRET}` }),
    ];
    // The mix really exercised success and failure paths.
    const statuses = outcomes.map((o) => o.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(8);
    expect(statuses.filter((s) => s >= 400).length).toBeGreaterThanOrEqual(8);
    expect(statuses).toContain(502);
    expect(statuses).toContain(401);
    // The upstream got the prompt (so it was really in flight) with its key.
    expect(JSON.stringify(upstream.requests.map((r) => r.body))).toContain(CANARY_PROMPT);

    await new Promise((r) => setTimeout(r, 1_500)); // async log flushes and group-committed rows
    const canaries = [CANARY_PROMPT, CANARY_UPSTREAM_KEY, CANARY_DEAD_UPSTREAM_KEY, CANARY_STRIPE_SECRET, CANARY_STRIPE_WEBHOOK, CANARY_WEBHOOK_SECRET, CANARY_BAD_KEY, key];
    const log = server.logs();
    expect(log.length).toBeGreaterThan(1000); // trace level really logged
    for (const c of canaries) expect(log.includes(c), `log contains ${c.slice(0, 12)}…`).toBe(false);
    for (const table of ["request_logs", "audit_log", "webhook_attempts", "webhook_deliveries", "ledger_entries", "stripe_events", "api_keys", "upstreams"]) {
      const rows = await server.query<{ row: string }>(`select t::text as row from ${table} t`);
      const text = rows.map((r) => r.row).join("\n");
      for (const c of canaries) expect(text.includes(c), `${table} contains ${c.slice(0, 12)}…`).toBe(false);
    }
  });
});
