/**
 * The gateway on a model of Vercel's functions (vercel-model.ts): two instances in serverless
 * mode, each frozen with SIGSTOP as soon as no request is in flight and no work handed to
 * waitUntil is pending, thawed by its next request; background jobs only through the cron route.
 * Through them: text on the four protocols (streamed and not), embeddings, images, a video task
 * to completion with its webhook, a background response. While every instance sleeps the books
 * are exact (nothing held, every request charged), a request the balance covers is never refused
 * because the other instance sleeps, and no request waits behind a sleeping instance. An
 * instance killed while frozen loses nothing. PostgreSQL only (two processes share a database).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver";
import { createAccount } from "../support/accounts";
import { usesPostgres } from "../support/server";
import { startInstance, type Instance } from "./vercel-model";

let a: Instance;
let b: Instance;
let receiver: WebhookReceiver;
const HOOK_SECRET = "freeze-test-hook-secret";

beforeAll(async () => {
  if (!usesPostgres()) throw new Error("the freeze test needs PostgreSQL (DATABASE_URL)");
  receiver = await startWebhookReceiver({ secret: HOOK_SECRET });
  const env = { WEBHOOK_ALLOW_HOSTS: receiver.hostPort, WEBHOOK_RETRY_SCHEDULE_S: "1,1,1", TASK_POLL_INTERVAL_MS: "200" };
  a = await startInstance({ env });
  b = await startInstance({ env, shareWith: a.server });
});
afterAll(async () => {
  await b?.close().catch(() => {});
  await a?.close();
  await receiver?.close();
});

async function account(usd: number) {
  return a.awake(() => createAccount(a.server, { usd }));
}

interface Books {
  balance: number;
  held: number;
  holds: number;
  ledger: number;
  charges: number;
  logs: number;
}

async function books(email: string): Promise<Books> {
  const [r] = await a.server.query<Record<string, string>>(
    `select a.balance_micro_usd as balance, a.held_micro_usd as held,
            (select count(*) from holds h where h.account_id = a.id) as holds,
            (select coalesce(sum(delta_micro_usd), 0) from ledger_entries l where l.account_id = a.id) as ledger,
            (select count(*) from ledger_entries l where l.account_id = a.id and l.kind = 'charge') as charges,
            (select count(*) from request_logs r where r.account_id = a.id) as logs
       from accounts a join users u on u.account_id = a.id where u.email = $1`,
    [email],
  );
  return Object.fromEntries(Object.entries(r!).map(([k, v]) => [k, Number(v)])) as unknown as Books;
}

/** Both instances asleep, then the books: nothing held, the balance equal to its ledger. */
async function asleepBooks(email: string): Promise<Books> {
  await Promise.all([a.untilFrozen(), b.untilFrozen()]);
  const x = await books(email);
  expect(x.held, "money held while every instance sleeps").toBe(0);
  expect(x.holds).toBe(0);
  expect(x.balance).toBe(x.ledger);
  return x;
}

type Call = { path: string; body: Record<string, unknown>; headers?: (key: string) => Record<string, string> };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The four protocols, each streamed and not. */
function textCalls(maxTokens: number): Call[] {
  const chat = (stream: boolean): Call => ({ path: "/v1/chat/completions", body: { model: "demo-chat", max_tokens: maxTokens, stream, messages: [{ role: "user", content: "freeze me" }] } });
  const responses = (stream: boolean): Call => ({ path: "/v1/responses", body: { model: "demo-chat", max_output_tokens: maxTokens, stream, input: "freeze me" } });
  const messages = (stream: boolean): Call => ({
    path: "/v1/messages",
    body: { model: "demo-chat", max_tokens: maxTokens, stream, messages: [{ role: "user", content: "freeze me" }] },
    headers: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
  });
  const gemini = (stream: boolean): Call => ({
    path: `/v1beta/models/demo-chat:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    body: { contents: [{ role: "user", parts: [{ text: "freeze me" }] }], generationConfig: { maxOutputTokens: maxTokens } },
    headers: (key) => ({ "x-goog-api-key": key }),
  });
  return [false, true].flatMap((s) => [chat(s), responses(s), messages(s), gemini(s)]);
}

async function call(i: Instance, key: string, c: Call): Promise<{ status: number; text: string; ms: number }> {
  const t0 = Date.now();
  const r = await fetch(`${i.url}${c.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(c.headers ?? bearer)(key) },
    body: JSON.stringify(c.body),
  });
  const text = await r.text();
  return { status: r.status, text, ms: Date.now() - t0 };
}

describe("serverless mode on frozen instances", () => {
  it("text on four protocols, streamed and not: every request charged and nothing held while both instances sleep", async () => {
    const { email, key } = await account(1);
    const calls = textCalls(200);
    for (const [n, c] of calls.entries()) {
      const r = await call(n % 2 ? b : a, key, c);
      expect(r.status, `${c.path} ${r.text.slice(0, 300)}`).toBe(200);
      const x = await asleepBooks(email);
      expect(x.charges, `charged before its instance froze: ${c.path}`).toBe(n + 1);
      expect(x.logs).toBe(n + 1);
    }
    expect(a.freezes()).toBeGreaterThan(4);
    expect(b.freezes()).toBeGreaterThan(4);
  });

  it("embeddings and images: charged, nothing held while both sleep", async () => {
    const { email, key } = await account(1);
    const e = await call(a, key, { path: "/v1/embeddings", body: { model: "demo-embed", input: ["one", "two"] } });
    expect(e.status, e.text).toBe(200);
    const img = await call(b, key, { path: "/v1/images/generations", body: { model: "demo-image-mini", prompt: "a frozen lake", n: 1 } });
    expect(img.status, img.text.slice(0, 300)).toBe(200);
    const x = await asleepBooks(email);
    expect(x.charges).toBe(2);
    expect(x.balance).toBeLessThan(1_000_000);
  });

  it("never refuses a covered request because the other instance sleeps, and never waits for it", async () => {
    // Each request holds its worst case (1024 output tokens ≈ $0.0016) but costs a fraction of
    // it: $0.01 covers every one of them, alternating between the instances.
    const { email, key } = await account(0.01);
    const chat: Call = { path: "/v1/chat/completions", body: { model: "demo-chat", max_tokens: 1024, messages: [{ role: "user", content: "covered" }] } };
    const slowest: number[] = [];
    for (let n = 0; n < 12; n++) {
      const i = n % 2 ? b : a;
      const other = n % 2 ? a : b;
      await other.untilFrozen();
      const r = await call(i, key, chat);
      expect(r.status, `request ${n}: ${r.text.slice(0, 300)}`).toBe(200);
      slowest.push(r.ms);
    }
    // A thawed instance answers at once; nothing waits for the sleeping one.
    expect(Math.max(...slowest)).toBeLessThan(3_000);
    const x = await asleepBooks(email);
    expect(x.charges).toBe(12);
  });

  it("a video task completes and its webhook goes out through cron passes alone", async () => {
    const { email, key } = await account(1);
    const r = await fetch(`${a.url}/v1/videos`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-video", prompt: "a glacier, frozen", seconds: "10", webhook: `${receiver.url}/hook`, webhook_secret: HOOK_SECRET }),
    });
    const task = (await r.json()) as { id: string; status: string };
    expect(r.status, JSON.stringify(task)).toBe(200);
    await Promise.all([a.untilFrozen(), b.untilFrozen()]);
    // Nothing runs between requests: the task waits for the cron.
    await new Promise((res) => setTimeout(res, 1_000));
    const [still] = await a.server.query<{ status: string }>("select status from tasks where id = $1", [task.id]);
    expect(still!.status).toBe("queued");
    const passes: Record<string, unknown>[] = [];
    for (let n = 0; n < 30 && receiver.received.length === 0; n++) {
      passes.push(await (n % 2 ? b : a).cron());
      await new Promise((res) => setTimeout(res, 250));
    }
    const hooks = await receiver.waitFor(1, 5_000);
    expect(hooks[0]!.signatureOk).toBe(true);
    expect((hooks[0]!.json as { id: string; status: string }).status).toBe("completed");
    expect(passes.some((p) => Number(p.video_task_turns) > 0)).toBe(true);
    expect(passes.some((p) => Number(p.webhook_deliveries) > 0)).toBe(true);
    const x = await asleepBooks(email);
    expect(x.charges).toBeGreaterThan(0);
  });

  it("a background response runs to completion in its own invocation and is read from the other instance", async () => {
    const { email, key } = await account(1);
    const r = await call(a, key, { path: "/v1/responses", body: { model: "demo-chat", input: "in the background", background: true, max_output_tokens: 200 } });
    expect(r.status, r.text).toBe(200);
    const { id, status } = JSON.parse(r.text) as { id: string; status: string };
    expect(status).toBe("queued");
    // The run was handed to waitUntil: the instance sleeps only once it is done.
    await a.untilFrozen(30_000);
    const got = await fetch(`${b.url}/v1/responses/${id}`, { headers: bearer(key) });
    const body = (await got.json()) as { status: string; output_text?: string };
    expect(body.status).toBe("completed");
    const x = await asleepBooks(email);
    expect(x.charges).toBe(1);
  });

  it("the second instance's cold start found the config applied and did not apply it again", () => {
    expect(b.server.logs()).toContain("the config is the one applied last: not applied again");
  });

  it("the cron route refuses a caller without the secret", async () => {
    for (const authorization of [undefined, "Bearer wrong", "Bearer cron-secret-for-the-freeze-test-and-more"]) {
      const r = await fetch(`${a.url}/api/cron/tick`, { headers: authorization ? { authorization } : {} });
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("invalid_cron_secret");
    }
  });

  it("an instance killed while frozen takes nothing with it", async () => {
    const { email, key } = await account(1);
    expect((await call(b, key, textCalls(100)[1]!)).status).toBe(200);
    await b.untilFrozen();
    await b.kill();
    const r = await call(a, key, textCalls(100)[0]!);
    expect(r.status).toBe(200);
    await a.untilFrozen();
    const x = await books(email);
    expect(x).toMatchObject({ held: 0, holds: 0, charges: 2 });
    expect(x.balance).toBe(x.ledger);
  });
});
