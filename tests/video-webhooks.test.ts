/**
 * Task webhooks against the real server: signed deliveries to a loopback receiver (allowed with
 * WEBHOOK_ALLOW_HOSTS) on a compressed retry schedule — 500, 500, 200 → three attempts; 400 →
 * one; a slow receiver → timeout and retry; a redirect is never followed — and a loopback
 * "canary" that must receive nothing from any hostile webhook URL, all refused with 400 and
 * nothing charged.
 */
import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_WEBHOOK_URLS } from "../lib/tasks/__fixtures__/hostile-webhook-urls";
import { blockedAddressReason } from "../lib/tasks/ssrf";
import { verifySignature } from "../lib/tasks/webhook-signature";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "./fakes/openai-video-upstream";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";
import { apiClient, videoGatewayConfig } from "./video-config";

const SECRET = "whsec-integration-0123";
let server: TestServer;
let fake: FakeOpenAIVideoUpstream;
let receiver: WebhookReceiver;
let canary: WebhookReceiver;
let email: string;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  fake = await startFakeOpenAIVideoUpstream({ stepsToComplete: 2 });
  receiver = await startWebhookReceiver({ secret: SECRET });
  canary = await startWebhookReceiver();
  server = await startTestServer({
    config: videoGatewayConfig(fake.baseUrl, fake.apiKey),
    env: {
      TASK_POLL_INTERVAL_MS: "200",
      WEBHOOK_ALLOW_HOSTS: receiver.hostPort,
      WEBHOOK_RETRY_SCHEDULE_S: "1,1,1",
      WEBHOOK_TIMEOUT_MS: "1000",
    },
  });
  let key: string;
  ({ email, key } = await createAccount(server, { usd: 5 }));
  api = apiClient(server, key);
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
  await receiver?.close();
  await canary?.close();
});

function hooksFor(taskId: string) {
  return receiver.received.filter((h) => (h.json as { id?: string } | null)?.id === taskId);
}

async function waitHooks(taskId: string, n: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (hooksFor(taskId).length < n) {
    if (Date.now() > deadline) throw new Error(`${hooksFor(taskId).length} of ${n} deliveries for ${taskId}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return hooksFor(taskId);
}

async function deliveryState(taskId: string): Promise<{ state: string; attempts: number } | null> {
  const rows = await server.query<{ state: string; attempts: number }>("select state, attempts from webhook_deliveries where task_id = $1", [taskId]);
  return rows[0] ?? null;
}

async function untilDelivery(taskId: string, state: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const d = await deliveryState(taskId);
    if (d?.state === state) return d;
    if (Date.now() > deadline) throw new Error(`delivery of ${taskId} is ${d?.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function submitWithHook(prompt: string, webhook = receiver.url) {
  const r = await api.submit({ model: "vid-a", prompt, seconds: "10", webhook, webhook_secret: SECRET });
  expect(r.status).toBe(200);
  return r.json.id as string;
}

describe("delivery", () => {
  it("posts the signed Task object once the task is final: 500, 500, 200 → three attempts", async () => {
    receiver.setScript([{ status: 500 }, { status: 500 }, { status: 200 }], { status: 200 });
    const id = await submitWithHook("a lighthouse in fog");
    const hooks = await waitHooks(id, 3);
    const task = await api.task(id);
    expect(task.json.status).toBe("completed");
    for (const h of hooks) {
      expect(h.method).toBe("POST");
      expect(h.path).toBe("/hook");
      expect(h.headers["content-type"]).toBe("application/json");
      expect(h.headers["x-shim-signature"]).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
      expect(h.signatureOk).toBe(true);
      expect(verifySignature(h.headers["x-shim-signature"] as string, h.rawBody, SECRET).ok).toBe(true);
    }
    // Same bytes and delivery id on every attempt; the body is the Task object.
    expect(new Set(hooks.map((h) => h.rawBody.toString())).size).toBe(1);
    expect(new Set(hooks.map((h) => h.headers["x-shim-delivery"])).size).toBe(1);
    expect(hooks[0]!.json).toEqual(task.json);
    // Retries wait for the schedule (1 s here), so each attempt signs a later t.
    const ts = hooks.map((h) => Number(/t=(\d+)/.exec(h.headers["x-shim-signature"] as string)![1]));
    expect(ts[1]! > ts[0]! && ts[2]! > ts[1]!).toBe(true);
    if (usesPostgres()) {
      expect(await untilDelivery(id, "delivered")).toEqual({ state: "delivered", attempts: 3 });
      const attempts = await server.query<{ status_code: number | null; latency_ms: number }>("select a.status_code, a.latency_ms from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.task_id = $1 order by a.attempt_no", [id]);
      expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 200]);
    }
  });

  it("a failed task arrives with status failed, result null and error.message", async () => {
    receiver.setScript([], { status: 200 });
    const id = await submitWithHook("doomed [fail]");
    const [h] = await waitHooks(id, 1);
    expect(h!.json).toMatchObject({ id, object: "task", status: "failed", result: null, cost: 0, error: { message: "The upstream could not generate this video." } });
  });

  it("a 400 answer stops delivery after one attempt", async () => {
    receiver.setScript([{ status: 400 }], { status: 200 });
    const id = await submitWithHook("rejected by the receiver [fail]");
    await waitHooks(id, 1);
    if (usesPostgres()) {
      expect(await untilDelivery(id, "stopped")).toEqual({ state: "stopped", attempts: 1 });
    } else {
      await new Promise((r) => setTimeout(r, 3500)); // the whole compressed schedule
    }
    expect(hooksFor(id)).toHaveLength(1);
  });

  it("a slow receiver times out and is retried", async () => {
    receiver.setScript([{ status: 200, delayMs: 2500 }], { status: 200 });
    const id = await submitWithHook("slow receiver [fail]");
    const hooks = await waitHooks(id, 2);
    expect(hooks[1]!.receivedAt - hooks[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
    if (usesPostgres()) {
      await untilDelivery(id, "delivered");
      const [first] = await server.query<{ error: string }>("select a.error from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.task_id = $1 and a.attempt_no = 1", [id]);
      expect(first!.error).toBe("no answer within 1000 ms");
    }
  });

  it("a redirect is not followed: the canary gets nothing, the delivery is retried", async () => {
    receiver.setScript([{ status: 302, location: canary.url }, { status: 307, location: `http://[::ffff:127.0.0.1]:${canary.port}/` }], { status: 200 });
    const id = await submitWithHook("redirecting receiver [fail]");
    await waitHooks(id, 3);
    expect(canary.received).toHaveLength(0);
  });
});

/** Names the system resolver maps to loopback here (e.g. the machine's own name in /etc/hosts). */
function loopbackNamesFromHosts(): string[] {
  try {
    return fs
      .readFileSync("/etc/hosts", "utf8")
      .split("\n")
      .map((l) => l.replace(/#.*/, "").trim().split(/\s+/))
      .filter((p) => p.length > 1 && net.isIP(p[0]!) && blockedAddressReason(p[0]!) !== null)
      .flatMap((p) => p.slice(1))
      .filter((n) => !/localhost/i.test(n) && /^[a-z0-9.-]+$/i.test(n));
  } catch {
    return [];
  }
}

describe("hostile webhook URLs", () => {
  it("refuses every one with 400 invalid_request, charges nothing, and the canary gets nothing", async () => {
    const c = canary.port;
    const own = new URL(server.env.PUBLIC_BASE_URL!);
    const cases = [
      ...HOSTILE_WEBHOOK_URLS,
      canary.url,
      `http://127.0.0.1:${c}/hook`,
      `http://localhost:${c}/hook`,
      `http://2130706433:${c}/`,
      `http://0x7f.1:${c}/`,
      `http://[::1]:${c}/`,
      `http://[::ffff:127.0.0.1]:${c}/`,
      `http://0.0.0.0:${c}/`,
      `http://${own.host}/v1/hook`,
      `http://${own.hostname.toUpperCase()}.:${server.port}/hook`,
      `http://127.0.0.1:${server.port}/v1/videos`,
      `ftp://127.0.0.1:${c}/`,
      `http://user:pw@127.0.0.1:${c}/`,
      ...loopbackNamesFromHosts().map((n) => `http://${n}:${c}/hook`),
    ];
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const before = await balanceUsd(server, email);
    const creates = () => fake.requests.filter((q) => q.method === "POST").length;
    const calls = creates();
    for (const webhook of cases) {
      const r = await api.submit({ model: "vid-a", prompt: "hostile", seconds: "10", webhook });
      if (r.status !== 400) throw new Error(`accepted hostile webhook "${webhook}"`);
      expect(r.json.error, webhook).toMatchObject({ type: "invalid_request", code: "invalid_request", param: "webhook" });
    }
    expect(await balanceUsd(server, email)).toBe(before);
    expect(creates()).toBe(calls);
    expect(canary.received).toHaveLength(0);
  });

  it("a webhook_secret outside 8–128 characters is refused", async () => {
    for (const s of ["1234567", "x".repeat(129)]) {
      const r = await api.submit({ model: "vid-a", prompt: "p", seconds: "10", webhook: receiver.url, webhook_secret: s });
      expect(r.status).toBe(400);
      expect(r.json.error.param).toBe("webhook_secret");
    }
  });
});
