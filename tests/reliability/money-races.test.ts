/**
 * Money paths racing each other (issue 12, items 1–4), on two instances sharing one PostgreSQL
 * database: chat, images, embeddings and video submissions on one key at once (no deadlock, no
 * 5xx, nothing held once idle, books exact); a lease whose extension throws still goes back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGeminiEmbed, type FakeGeminiEmbed } from "../fakes/gemini-embed-upstream";
import { mediaGatewayConfig } from "../fakes/media-gateway-config";
import { startFakeOpenAIMedia, type FakeOpenAIMedia } from "../fakes/openai-media-upstream";
import { startFakeOpenAI } from "../fakes/openai-upstream";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "../fakes/openai-video-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { createAccount, createKey } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

let text: FakeTextUpstream;
let media: FakeOpenAIMedia;
let gemini: FakeGeminiEmbed;
let video: FakeOpenAIVideoUpstream;
const servers: TestServer[] = [];
let a: TestServer;
let b: TestServer;

function config() {
  const m = mediaGatewayConfig(media.baseUrl, gemini.baseUrl);
  return {
    upstreams: [
      ...m.upstreams,
      { id: "txt", protocol: "openai", baseUrl: text.baseUrl, apiKey: text.apiKey, timeoutMs: 20_000 },
      { id: "vid", protocol: "openai-video", baseUrl: video.baseUrl, apiKey: video.apiKey },
    ],
    models: [
      ...m.models,
      // 10 output tokens at 100 USD per million: 0.001 USD a request, held as 0.001 × max_tokens/10.
      { id: "chat-race", kind: "text", upstream: "txt", upstreamModel: "gpt-fake", price: { inputPerMTok: 0, outputPerMTok: 100 } },
      // 10 output tokens at 5000 USD per million: 0.05 USD a request, held exactly (max_tokens 10).
      { id: "chat-dear", kind: "text", upstream: "txt", upstreamModel: "gpt-fake", price: { inputPerMTok: 0, outputPerMTok: 5000 } },
      { id: "vid-race", kind: "video", family: "t2v", upstream: "vid", upstreamModel: "sora-2", price: { perVideo: 0.01 } },
    ],
  };
}

beforeAll(async () => {
  if (!usesPostgres()) return;
  text = await startFakeOpenAI();
  text.reset({ text: "one two three four five six seven eight nine ten", usage: { input: 7, output: 10 }, responseDelayMs: 15 });
  media = await startFakeOpenAIMedia();
  media.script.delayMs = 15;
  gemini = await startFakeGeminiEmbed();
  video = await startFakeOpenAIVideoUpstream();
  a = await startTestServer({ config: config() });
  servers.push(a);
  b = await startTestServer({ config: config(), shareWith: a });
  servers.push(b);
}, 180_000);

afterAll(async () => {
  for (const s of servers.reverse()) await s.dispose();
  await Promise.all([text?.close(), media?.close(), gemini?.close(), video?.close()]);
});

async function post(server: TestServer, key: string, path: string, body: unknown) {
  const r = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await r.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  return { status: r.status, code: json?.error?.code, message: json?.error?.message, path };
}

describe.skipIf(!usesPostgres())("money paths racing on one key, two instances", () => {
  it("chat, images, embeddings and videos at once: no 5xx, nothing held after idle, balance = Σ ledger", async () => {
    const acct = await createAccount(a, { usd: "20" });
    const jobs: Array<() => ReturnType<typeof post>> = [];
    for (let i = 0; i < 30; i++) {
      const s = i % 2 ? a : b;
      jobs.push(() => post(s, acct.key, "/v1/chat/completions", { model: "chat-race", max_tokens: 10, messages: [{ role: "user", content: `chat ${i}` }] }));
      jobs.push(() => post(s === a ? b : a, acct.key, "/v1/videos", { model: "vid-race", prompt: `video ${i}`, seconds: "10" }));
    }
    for (let i = 0; i < 12; i++) {
      const s = i % 2 ? a : b;
      jobs.push(() => post(s, acct.key, "/v1/images/generations", { model: "img-flat", prompt: `image ${i}` }));
      jobs.push(() => post(s === a ? b : a, acct.key, "/v1/embeddings", { model: "emb-oa", input: `embed ${i}` }));
    }
    // Two rounds, so that leases, holds, settlements and task charges overlap in every order.
    const results = [...(await Promise.all(jobs.map((j) => j()))), ...(await Promise.all(jobs.map((j) => j())))];
    const failed = results.filter((r) => r.status !== 200);
    expect(failed.map((r) => `${r.path} ${r.status} ${r.code ?? ""} ${r.message ?? ""}`)).toEqual([]);
    const books = await idleBooks(a, acct.email, 8_000);
    expect(books.held).toBe(0);
    expect(books.holds).toBe(0);
    expect(books.balance).toBe(books.ledger);
    // Every request has its charge: 60 chats (0.001), 60 videos (0.01), 24 images (0.02), embeddings (tiny).
    const [charges] = await a.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1 and l.kind = 'charge'",
      [acct.email],
    );
    expect(charges!.n).toBe(results.length);
    expect(a.logs() + b.logs()).not.toContain("deadlock detected");
  }, 120_000);

  it("a lease whose extension throws still goes back to the account once idle", async () => {
    const acct = await createAccount(a, { usd: "5" });
    const chat = (maxTokens: number) =>
      post(a, acct.key, "/v1/chat/completions", { model: "chat-race", max_tokens: maxTokens, messages: [{ role: "user", content: "hi" }] });
    // First request: a lease of 8 × its hold (0.008 USD) is created for this instance and key.
    expect((await chat(10)).status).toBe(200);
    // Any further growth of a lease row now fails inside the extension's transaction.
    await a.query(`create or replace function test_refuse_lease_growth() returns trigger language plpgsql as $$
      begin if new.amount_micro_usd > old.amount_micro_usd then raise exception 'lease growth refused by the test'; end if; return new; end $$`);
    await a.query("create trigger test_refuse_lease_growth before update on holds for each row execute function test_refuse_lease_growth()");
    try {
      // Within the idle delay: this one needs more than the lease has left, so the lease must grow.
      const r = await chat(1000);
      expect(r.status).toBeGreaterThanOrEqual(500);
    } finally {
      await a.query("drop trigger test_refuse_lease_growth on holds");
    }
    // Nobody uses the account any more: the lease goes back although its last extension threw.
    const books = await idleBooks(a, acct.email, 4_000);
    expect(books).toMatchObject({ held: 0, holds: 0 });
    expect(books.balance).toBe(books.ledger);
  }, 60_000);

  it("a settlement the database refuses is retried (transient) or written with a repaired log row: every request charged, nothing held", async () => {
    const acct = await createAccount(a, { usd: "5" });
    const [{ id }] = await a.query<{ id: string }>("select account_id as id from users where email = $1", [acct.email]);
    // The first settlements of this account hit a deadlock error (retry unchanged); every log row
    // that is not a repaired one is refused as if a value did not fit (retry with a repaired row).
    await a.query("create sequence if not exists test_settle_failures");
    await a.query(`create or replace function test_refuse_settlement() returns trigger language plpgsql as $$
      begin
        if new.account_id = '${id}' and new.status = 200 then
          if nextval('test_settle_failures') <= 3 then raise exception 'deadlock (test)' using errcode = '40P01'; end if;
          if new.settlement not like '%_repaired' then raise exception 'value out of range (test)' using errcode = '22003'; end if;
        end if;
        return new;
      end $$`);
    await a.query("create trigger test_refuse_settlement before insert on request_logs for each row execute function test_refuse_settlement()");
    let results: Awaited<ReturnType<typeof post>>[];
    try {
      results = [];
      for (let i = 0; i < 4; i++) {
        results.push(await post(a, acct.key, "/v1/chat/completions", { model: "chat-race", max_tokens: 10, messages: [{ role: "user", content: `x ${i}` }] }));
        results.push(await post(b, acct.key, "/v1/chat/completions", { model: "chat-race", max_tokens: 10, stream: true, messages: [{ role: "user", content: `y ${i}` }] }));
        results.push(await post(a, acct.key, "/v1/images/generations", { model: "img-flat", prompt: `image ${i}` }));
      }
      // Let the early-replied settlements finish before the trigger goes.
      await idleBooks(a, acct.email, 8_000);
    } finally {
      await a.query("drop trigger test_refuse_settlement on request_logs");
    }
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const books = await idleBooks(a, acct.email);
    expect(books).toMatchObject({ held: 0, holds: 0 });
    expect(books.balance).toBe(books.ledger);
    // 8 chats at 0.001 USD and 4 images at 0.02 USD: every one charged.
    expect(5_000_000 - books.balance).toBe(8 * 1_000 + 4 * 20_000);
    const rows = await a.query<{ settlement: string; usage_note: string | null; cost: string }>(
      "select settlement, usage_note, cost_micro_usd as cost from request_logs where account_id = $1 and status = 200",
      [id],
    );
    expect(rows.length).toBe(12);
    expect(rows.every((r) => r.settlement.endsWith("_repaired") && r.usage_note?.includes("repaired"))).toBe(true);
  }, 90_000);

});

describe.skipIf(!usesPostgres())("leases never refuse what the balance covers (two instances, two keys)", () => {
  // max_tokens 1000 holds 0.1 USD; the fake answers 10 tokens, so each request costs 0.001 USD.
  const chat = (s: TestServer, key: string) =>
    post(s, key, "/v1/chat/completions", { model: "chat-race", max_tokens: 1000, messages: [{ role: "user", content: "drain" }] });

  it("drains one account to the last cent, one request at a time: every covered request is served, none beyond", async () => {
    const acct = await createAccount(a, { usd: "0.2" });
    const key2 = await createKey(a, acct.email);
    const combos: Array<[TestServer, string]> = [[a, acct.key], [b, key2], [a, key2], [b, acct.key]];
    const statuses: number[] = [];
    let refusedInARow = 0;
    for (let i = 0; refusedInARow < combos.length && i < 200; i++) {
      const [s, key] = combos[i % combos.length]!;
      const r = await chat(s, key);
      statuses.push(r.status);
      refusedInARow = r.status === 402 ? refusedInARow + 1 : 0;
      if (r.status === 402) expect(r.code).toBe("insufficient_user_quota");
    }
    // A hold of 0.1 fits while the balance is ≥ 0.1: 0.2 → 0.1 takes 100 requests, the 101st leaves 0.099.
    expect(statuses.filter((x) => x === 200).length).toBe(101);
    expect(statuses.slice(0, 101).every((x) => x === 200)).toBe(true);
    const books = await idleBooks(a, acct.email);
    expect(books).toEqual({ balance: 99_000, held: 0, ledger: 99_000, holds: 0 });
  }, 120_000);

  it("nine requests at once whose holds take nearly all of the balance are all served", async () => {
    const acct = await createAccount(a, { usd: "1" });
    const key2 = await createKey(a, acct.email);
    const combos: Array<[TestServer, string]> = [[a, acct.key], [b, key2], [a, key2], [b, acct.key]];
    // Warm every lease first (as a busy account would have them), then 10 × 0.1 USD of holds at once.
    for (const [s, key] of combos) expect((await chat(s, key)).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => chat(...combos[i % combos.length]!)));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const books = await idleBooks(a, acct.email);
    expect(books).toMatchObject({ held: 0, holds: 0, balance: 1_000_000 - 13 * 1_000 });
    expect(books.balance).toBe(books.ledger);
  }, 60_000);

  it("an admin debit racing in-flight requests never takes the balance below zero, and says why it refuses", async () => {
    const acct = await createAccount(a, { usd: "1" });
    text.reset({ text: "one two three four five six seven eight nine ten", usage: { input: 7, output: 10 }, responseDelayMs: 600 });
    try {
      // 20 requests of 0.05 USD each hold the whole balance for ~0.6 s.
      const inflight = Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(i % 2 ? a : b, acct.key, "/v1/chat/completions", { model: "chat-dear", max_tokens: 10, messages: [{ role: "user", content: `r ${i}` }] }),
        ),
      );
      await new Promise((r) => setTimeout(r, 250));
      const debit = await a.admin("debit", "--email", acct.email, "--usd", "0.5", "--note", "race");
      const results = await inflight;
      expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
      // The requests took all the money: the debit cannot have happened.
      expect(debit.exitCode).not.toBe(0);
      expect(debit.stderr.join(" ")).toMatch(/debit of 0\.50 USD (refused: the balance is .* held by requests in flight|would take the balance below zero)/);
    } finally {
      text.reset({ text: "one two three four five six seven eight nine ten", usage: { input: 7, output: 10 }, responseDelayMs: 15 });
    }
    const books = await idleBooks(a, acct.email);
    expect(books).toEqual({ balance: 0, held: 0, ledger: 0, holds: 0 });
    // With nothing in flight, a debit of money the account has goes through, and one beyond it says why not.
    expect((await a.admin("credit", "--email", acct.email, "--usd", "0.3")).exitCode).toBe(0);
    expect((await a.admin("debit", "--email", acct.email, "--usd", "0.2", "--note", "fine")).exitCode).toBe(0);
    const over = await a.admin("debit", "--email", acct.email, "--usd", "0.2", "--note", "too much");
    expect(over.exitCode).not.toBe(0);
    expect(over.stderr.join(" ")).toContain("below zero");
  }, 60_000);
});
