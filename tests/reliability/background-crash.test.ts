/**
 * A background response whose instance is SIGKILLed mid-run (issue 32, item 9), on two instances
 * sharing one PostgreSQL database: the survivor fails the run and its money comes back within a
 * minute, as the README says — waited for in real time, nothing moved by hand. The interrupted
 * run is not charged: balance = ledger, nothing held, no hold rows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

let a: TestServer;
let b: TestServer;
let upstream: FakeTextUpstream;

beforeAll(async () => {
  if (!usesPostgres()) return;
  upstream = await startFakeOpenAI();
  const config = {
    upstreams: [{ id: "oa", protocol: "openai", baseUrl: upstream.baseUrl, apiKey: upstream.apiKey, timeoutMs: 120_000 }],
    // A dear model, so the run holds real money: 1,000 output tokens at $2,000 per million.
    models: [{ id: "chat-dear", kind: "text", upstream: "oa", upstreamModel: "gpt-fake", price: { inputPerMTok: 1_000, outputPerMTok: 2_000 }, defaultMaxTokens: 1000 }],
  };
  a = await startTestServer({ config });
  b = await startTestServer({ config, shareWith: a });
}, 120_000);

afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
  await upstream?.close();
});

describe.skipIf(!usesPostgres())("an instance killed in the middle of a background run", () => {
  it("fails the run and returns its money within a minute, on the other instance", async () => {
    const { key, email } = await createAccount(a, { usd: 10 });
    upstream.reset({ text: Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" "), eventDelayMs: 50, usage: { input: 5, output: 2000 } });
    const res = await fetch(`${a.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "chat-dear", input: "go", background: true }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const account = async () =>
      (await b.query<{ id: string; held: string; status: string }>("select a.id, a.held_micro_usd as held, (select status from stored_responses where id = $2) as status from accounts a join users u on u.account_id = a.id where u.email = $1", [email, id]))[0]!;
    for (let i = 0; i < 100 && (await account()).status !== "in_progress"; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_500));
    const before = await account();
    expect(before.status).toBe("in_progress");
    expect(Number(before.held)).toBeGreaterThan(0);

    await a.stop("SIGKILL");
    const killedAt = Date.now();
    let failedAfterMs = 0;
    let returnedAfterMs = 0;
    while (Date.now() - killedAt < 75_000 && !(failedAfterMs && returnedAfterMs)) {
      const now = await account();
      if (!failedAfterMs && now.status === "failed") failedAfterMs = Date.now() - killedAt;
      if (!returnedAfterMs && Number(now.held) === 0) returnedAfterMs = Date.now() - killedAt;
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(`held at the kill: ${before.held} µUSD; run failed after ${failedAfterMs} ms; money back after ${returnedAfterMs} ms`);
    expect(failedAfterMs, "the run is failed").toBeGreaterThan(0);
    expect(returnedAfterMs, "the hold is back").toBeGreaterThan(0);
    expect(Math.max(failedAfterMs, returnedAfterMs)).toBeLessThanOrEqual(60_000);
    const books = await idleBooks(b, email);
    expect(books.held).toBe(0);
    expect(books.holds).toBe(0);
    expect(books.ledger).toBe(books.balance);
    expect(books.balance).toBe(10_000_000); // the interrupted run is not charged
  }, 120_000);
});
