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
import { createAccount } from "../support/accounts";
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
});
