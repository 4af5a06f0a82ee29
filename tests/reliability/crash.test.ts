/**
 * The server SIGKILLed in the middle of a stream. Whatever it held for the request (a balance
 * lease, or a hold row) is in the database with an expiry; after a restart the hold sweeper
 * returns it once it expires. No money is lost or created: balance = ledger, nothing held.
 * (The test moves the expiry into the past instead of waiting; background-crash.test.ts waits
 * for the real expiry on a second instance.)
 * Video tasks killed mid-task are covered by tests/video-restart.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, type TestServer } from "../support/server";

let server: TestServer;
let upstream: FakeTextUpstream;

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  server = await startTestServer({
    config: {
      upstreams: [{ id: "oa", protocol: "openai", baseUrl: upstream.baseUrl, apiKey: upstream.apiKey, timeoutMs: 30_000 }],
      models: [{ id: "chat-k", kind: "text", upstream: "oa", upstreamModel: "gpt-fake", price: { inputPerMTok: 1, outputPerMTok: 2 }, defaultMaxTokens: 1000 }],
    },
  });
});
afterAll(async () => {
  await server?.dispose();
  await upstream?.close();
});

describe("SIGKILL mid-stream", () => {
  it("leaves nothing held for good and the books exact after a restart", async () => {
    const { key, email } = await createAccount(server, { usd: 1 });
    upstream.reset({ text: Array.from({ length: 200 }, (_, i) => `w${i}`).join(" "), eventDelayMs: 50, usage: { input: 5, output: 200 } });
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "chat-k", stream: true, messages: [{ role: "user", content: "go" }] }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let got = "";
    while (!got.includes("w5")) got += new TextDecoder().decode((await reader.read()).value);
    await server.stop("SIGKILL");
    await reader.cancel().catch(() => {});

    const [acct] = await server.query<{ id: string; held: string }>(
      "select a.id, a.held_micro_usd as held from accounts a join users u on u.account_id = a.id where u.email = $1",
      [email],
    );
    expect(Number(acct!.held)).toBeGreaterThan(0); // the crash left money held
    await server.restart();
    // The lease's expiry, as far as the sweeper can tell.
    await server.query("update holds set expires_at = now() - interval '1 second' where account_id = $1", [acct!.id]);
    const books = await idleBooks(server, email, 45_000); // the sweeper runs every 10 s
    expect(books.held).toBe(0);
    expect(books.holds).toBe(0);
    expect(books.ledger).toBe(books.balance);
    expect(books.balance).toBeLessThanOrEqual(1_000_000);
    expect(books.balance).toBeGreaterThanOrEqual(0);
  });
});
