/**
 * Text billing against the real server: the exact charge (prices × usage, headers, balance,
 * ledger, log row), 402 before any upstream call (balance and key limit), a client that
 * disconnects mid-stream (upstream aborted, prompt + generated output billed), and 100
 * concurrent requests against a balance that covers 10.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { balanceUsd, createAccount, createKey } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";
import { until } from "./support/until";
import { tokensAsNumbers } from "./support/log-rows";
import { textGatewayConfig, textFakeUrls } from "./text-config";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
const METRICS_TOKEN = "text-billing-metrics";
const micro = (usd: number) => Math.round(usd * 1_000_000);
const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  server = await startTestServer({
    config: textGatewayConfig(textFakeUrls(fakes)),
    env: { METRICS_TOKEN: METRICS_TOKEN },
  });
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

async function logRow(requestId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 100; i++) {
    const rows = await server.query("select * from request_logs where request_id = $1", [requestId]);
    if (rows[0]) return tokensAsNumbers(rows[0]);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no request log row for ${requestId}`);
}

/** balance = Σ ledger, never negative, and once idle nothing held (a balance lease goes back within ~0.5 s). */
async function ledgerInvariant(email: string) {
  if (!usesPostgres()) return;
  for (let i = 0; i < 50; i++) {
    const [r] = await server.query<{ held: string }>("select a.held_micro_usd as held from accounts a join users u on u.account_id = a.id where u.email = $1", [email]);
    if (Number(r!.held) === 0) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const [row] = await server.query<{ balance: string; held: string; sum: string; holds: string }>(
    `select a.balance_micro_usd as balance, a.held_micro_usd as held,
            (select coalesce(sum(delta_micro_usd),0) from ledger_entries l where l.account_id = a.id) as sum,
            (select count(*) from holds h where h.account_id = a.id) as holds
       from accounts a join users u on u.account_id = a.id where u.email = $1`,
    [email],
  );
  expect(Number(row!.sum)).toBe(Number(row!.balance));
  expect(Number(row!.balance)).toBeGreaterThanOrEqual(0);
  expect(Number(row!.held)).toBe(0);
  expect(Number(row!.holds)).toBe(0);
}

describe("text billing", () => {
  it("charges exactly prices × upstream usage, in headers, balance, ledger and log row", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    fakes.gemini.reset({ usage: { input: 1000, output: 333 } });
    // Usage must fit the hold (prompt bound + max_tokens), or the charge is clamped to it.
    const prompt = "word ".repeat(300);
    const { data, response } = await client(key).chat.completions.create({ model: "chat-gemini", max_tokens: 500, messages: [{ role: "user", content: prompt }] }).withResponse();
    // 1 µUSD per input token, 2 per output token.
    const cost = 1000 * 1 + 333 * 2;
    expect(response.headers.get("x-gateway-cost-usd")).toBe("0.001666");
    expect(response.headers.get("x-gateway-balance-usd")).toBe("0.998334");
    expect(data.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 333, cost_usd: cost / 1e6 });
    expect(micro(1 - (await balanceUsd(server, email)))).toBe(cost);
    if (usesPostgres()) {
      const requestId = response.headers.get("x-request-id")!;
      const row = await logRow(requestId);
      expect(row).toMatchObject({ status: 200, settlement: "completed", inbound_protocol: "chat-completions", upstream_protocol: "gemini", upstream_id: "ge", model: "chat-gemini", input_tokens: 1000, output_tokens: 333, stream: false });
      expect(Number(row.cost_micro_usd)).toBe(cost);
      // Every class price the charge used, the fallbacks resolved.
      expect(row.price_snapshot).toEqual({
        inputPerMTok: 1_000_000, outputPerMTok: 2_000_000,
        cacheReadPerMTok: 1_000_000, cacheWrite5mPerMTok: 1_000_000, cacheWrite1hPerMTok: 1_000_000, reasoningPerMTok: 2_000_000,
      });
      expect(row.latency_ms).toBeGreaterThanOrEqual(0);
      const ledger = await server.query("select delta_micro_usd from ledger_entries where request_id = $1", [requestId]);
      expect(ledger.map((l: any) => Number(l.delta_micro_usd))).toEqual([-cost]);
      await ledgerInvariant(email);
    }
  });

  it("counts what it charged in /metrics, per model (gateway_spend_micro_usd_total)", async () => {
    const spend = async () => {
      const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      return Number(/^gateway_spend_micro_usd_total\{model="chat-gemini"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await spend();
    const { key } = await createAccount(server, { usd: 1 });
    fakes.gemini.reset({ usage: { input: 100, output: 10 } });
    await client(key).chat.completions.create({ model: "chat-gemini", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
    // The reply may precede its settlement's commit by a moment (decision 0006).
    for (let i = 0; i < 50 && (await spend()) === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await spend()) - before).toBe(100 * 1 + 10 * 2);
  });

  it("replies before the settlement commits once the balance is known: every header is its ledger row's balance, a credit shows at once", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    fakes.openai.reset({ usage: { input: 100, output: 50 } });
    const cost = 100 * 1 + 50 * 2;
    const seen: { requestId: string; cost: string | null; balance: string | null }[] = [];
    const call = async () => {
      const { response } = await client(key).chat.completions.create({ model: "chat-openai", max_tokens: 60, messages: [{ role: "user", content: "hi" }] }).withResponse();
      seen.push({ requestId: response.headers.get("x-request-id")!, cost: response.headers.get("x-gateway-cost-usd"), balance: response.headers.get("x-gateway-balance-usd") });
    };
    // The first waits for its settlement (nothing known yet); the next ones answer from the balance view.
    for (let i = 0; i < 6; i++) await call();
    expect(seen.map((s) => s.cost)).toEqual(Array(6).fill("0.0002"));
    expect(seen.map((s) => micro(Number(s.balance)))).toEqual([1, 2, 3, 4, 5, 6].map((n) => 1_000_000 - n * cost));
    // The admin CLI reads after every answered request has settled.
    expect(micro(await balanceUsd(server, email))).toBe(1_000_000 - 6 * cost);
    if (usesPostgres()) {
      const rows = await server.query<{ request_id: string; balance_after_micro_usd: string }>(
        "select request_id, balance_after_micro_usd from ledger_entries where request_id = any($1::text[])",
        [seen.map((s) => s.requestId)],
      );
      expect(seen.map((s) => micro(Number(s.balance)))).toEqual(seen.map((s) => Number(rows.find((r) => r.request_id === s.requestId)!.balance_after_micro_usd)));
      await ledgerInvariant(email);
    }
    // A top-up is in the very next answer (the view forgets what it knew and reads the balance back).
    await server.admin("credit", "--email", email, "--usd", "1");
    await call();
    expect(micro(Number(seen.at(-1)!.balance))).toBe(2_000_000 - 7 * cost);
  });

  it("streams carry the cost in the final usage event and settle the same amount", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    fakes.anthropic.reset({ usage: { input: 40, output: 7 } });
    const stream = await client(key).chat.completions.create({ model: "chat-anthropic", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Hi" }] });
    let usage: any;
    for await (const c of stream) if (c.usage) usage = c.usage;
    expect(usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 7, cost_usd: (40 + 14) / 1e6 });
    expect(micro(1 - (await balanceUsd(server, email)))).toBe(54);
    await ledgerInvariant(email);
  });

  it("counts tokens itself when the upstream reports no usage", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    fakes.openai.reset({ usage: null, text: "one two three four" });
    const r = await client(key).chat.completions.create({ model: "chat-openai", messages: [{ role: "user", content: "count these words please" }] });
    expect(r.choices[0]!.message.content).toBe("one two three four");
    const spent = micro(1 - (await balanceUsd(server, email)));
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBe(r.usage!.prompt_tokens * 1 + r.usage!.completion_tokens * 2);
    await ledgerInvariant(email);
  });

  it("a strict model (config file) refuses a hint with a 400 naming it and charges nothing; a lax one drops and names it", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    const body = { contents: [{ parts: [{ text: "hi" }] }], generationConfig: { topK: 40 } };
    const call = (model: string) =>
      fetch(`${server.url}/v1beta/models/${model}:generateContent`, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": key }, body: JSON.stringify(body) });
    const strict = await call("chat-strict");
    expect(strict.status).toBe(400);
    expect(((await strict.json()) as any).error.message).toMatch(/^generationConfig\.topK: /);
    expect(fakes.openai.generationRequests()).toHaveLength(0);
    const lax = await call("chat-openai");
    expect(lax.status).toBe(200);
    expect(lax.headers.get("x-gateway-dropped-params")).toBe("generationConfig.topK");
    expect(fakes.openai.generationRequests().at(-1)!.body.top_k).toBeUndefined();
    await ledgerInvariant(email);
  });

  it("answers 402 insufficient_user_quota before any upstream call, leaving no hold and no charge", async () => {
    const { email, key } = await createAccount(server, { usd: 0.0001 });
    const err: any = await client(key).chat.completions.create({ model: "chat-openai", messages: [{ role: "user", content: "Hi" }] }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.code).toBe("insufficient_user_quota");
    expect(err.headers.get("x-should-retry")).toBe("false");
    expect(fakes.openai.generationRequests()).toHaveLength(0);
    expect(await balanceUsd(server, email)).toBe(0.0001);
    await ledgerInvariant(email);
  });

  it("answers 402 key_limit_exceeded for a key past its own spend limit", async () => {
    const { email } = await createAccount(server, { usd: 5 });
    const limited = await createKey(server, email, "--limit-usd", "0.0001");
    const err: any = await client(limited).chat.completions.create({ model: "chat-openai", messages: [{ role: "user", content: "Hi" }] }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.code).toBe("key_limit_exceeded");
    expect(fakes.openai.generationRequests()).toHaveLength(0);
  });

  it("a client that disconnects mid-stream aborts the upstream and pays prompt + output so far", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
    fakes.openai.reset({ text: words, eventDelayMs: 20, usage: { input: 30, output: 200 } });
    const ac = new AbortController();
    const { data: stream, response } = await client(key)
      .chat.completions.create({ model: "chat-openai", stream: true, max_tokens: 1000, messages: [{ role: "user", content: "Talk" }] }, { signal: ac.signal })
      .withResponse();
    let got = 0;
    const requestId = response.headers.get("x-request-id")!;
    try {
      for await (const c of stream) {
        if (c.choices[0]?.delta.content) got++;
        if (got === 10) ac.abort();
      }
    } catch {
      /* aborted */
    }
    // The gateway aborts its upstream call.
    for (let i = 0; i < 100 && !fakes.openai.generationRequests()[0]?.aborted; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fakes.openai.generationRequests()[0]!.aborted).toBe(true);
    if (usesPostgres()) {
      const row = await logRow(requestId);
      expect(row.settlement).toBe("client_disconnect");
      expect(row.output_tokens).toBeGreaterThanOrEqual(10);
      expect(row.output_tokens).toBeLessThan(200);
      expect(row.input_tokens).toBeGreaterThan(0);
      const cost = Number(row.cost_micro_usd);
      expect(cost).toBe(row.input_tokens * 1 + row.output_tokens * 2);
      expect(micro(1 - (await balanceUsd(server, email)))).toBe(cost);
      await ledgerInvariant(email);
    }
  });

  it("a client that leaves while the gateway waits to retry an upstream's refusal pays nothing", async () => {
    const { email, key } = await createAccount(server, { usd: 1 });
    // Overloaded with a 1 s Retry-After: the gateway waits to try again, and the client leaves meanwhile.
    fakes.openai.reset({ failTimes: 10, failStatus: 503, errorMessage: "Overloaded", retryAfter: 1 });
    const ac = new AbortController();
    const sent = client(key).chat.completions.create({ model: "chat-openai", stream: true, messages: [{ role: "user", content: "Hello there" }] }, { signal: ac.signal });
    for (let i = 0; i < 100 && fakes.openai.generationRequests().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    ac.abort();
    await sent.catch(() => undefined);
    if (usesPostgres()) {
      const [row] = await until(
        () => server.query("select settlement, cost_micro_usd, input_tokens, status from request_logs where account_id = (select account_id from users where email = $1)", [email]),
        (rows) => rows.length === 1,
      );
      expect(row).toMatchObject({ settlement: "client_disconnect", status: 503 });
      expect(Number(row!.cost_micro_usd)).toBe(0);
      expect(Number(row!.input_tokens)).toBe(0);
      expect(await balanceUsd(server, email)).toBe(1);
      await ledgerInvariant(email);
    }
  });

  it("100 concurrent requests against a balance that covers 10: never below zero, ledger = balance", async () => {
    // Each hold is dominated by max_tokens (10,000 × 2 µUSD = 20,000 µUSD) plus a small prompt bound.
    const { email, key } = await createAccount(server, { usd: 0.205 });
    fakes.openai.reset({ responseDelayMs: 300, usage: { input: 11, output: 5 } });
    const c = client(key);
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        c.chat.completions.create({ model: "chat-openai", max_tokens: 10_000, messages: [{ role: "user", content: "Hi" }] }).then(
          () => 200,
          (e) => e.status as number,
        ),
      ),
    );
    const ok = results.filter((s) => s === 200).length;
    expect(results.filter((s) => s !== 200 && s !== 402)).toEqual([]);
    expect(ok).toBeGreaterThanOrEqual(10);
    // Holds bound concurrency: never more requests in flight upstream than the balance covers.
    expect(fakes.openai.maxInFlight()).toBeLessThanOrEqual(10);
    expect(fakes.openai.generationRequests()).toHaveLength(ok);
    const balance = micro(await balanceUsd(server, email));
    expect(balance).toBe(205_000 - ok * 21);
    await ledgerInvariant(email);
  });
});
