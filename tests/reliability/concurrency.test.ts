/**
 * Money under load: 200 parallel chat requests from 10 keys of one account whose balance covers
 * exactly 50 of them. At most 50 succeed, every other one is a 402, the balance never goes
 * below zero and the ledger sums to the balance — on one instance and on two instances sharing
 * the database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { adminOk, createAccount, createKey } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, type TestServer } from "../support/server";

let upstream: FakeTextUpstream;
const servers: TestServer[] = [];

// 10 output tokens at 100 USD per million = 0.001 USD a request; input is free, so the hold
// (max_tokens × output price) equals the real cost and exactly 50 requests fit in 0.05 USD.
const config = (u: FakeTextUpstream) => ({
  upstreams: [{ id: "oa", protocol: "openai", baseUrl: u.baseUrl, apiKey: u.apiKey, timeoutMs: 20_000 }],
  models: [{ id: "chat-load", kind: "text", upstream: "oa", upstreamModel: "gpt-fake", price: { inputPerMTok: 0, outputPerMTok: 100 } }],
});

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  upstream.reset({ text: "one two three four five six seven eight nine ten", usage: { input: 7, output: 10 }, responseDelayMs: 20 });
});
afterAll(async () => {
  for (const s of servers.reverse()) await s.dispose();
  await upstream.close();
});

async function fire(targets: TestServer[], keys: string[], n: number) {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const s = targets[i % targets.length]!;
      const r = await fetch(`${s.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys[i % keys.length]}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "chat-load", max_tokens: 10, messages: [{ role: "user", content: `request ${i}` }] }),
      });
      const body = await r.json();
      return { status: r.status, code: body?.error?.code as string | undefined };
    }),
  );
}


describe.each([1, 2])("200 parallel requests against a balance for 50 (%i instance(s))", (instances) => {
  let targets: TestServer[];
  let email: string;
  let keys: string[];

  beforeAll(async () => {
    const first = await startTestServer({ config: config(upstream) });
    servers.push(first);
    targets = [first];
    if (instances === 2) {
      const second = await startTestServer({ config: config(upstream), shareWith: first });
      servers.push(second);
      targets.push(second);
    }
    const acct = await createAccount(first, { usd: "0.05" });
    email = acct.email;
    keys = [acct.key];
    for (let i = 1; i < 10; i++) keys.push(await createKey(first, email));
  });

  it("lets at most 50 through, refuses the rest with 402 and leaves the books exact", async () => {
    const before = upstream.generationRequests().length;
    const results = await fire(targets, keys, 200);
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok.length + refused.length).toBe(200);
    expect(ok.length).toBeLessThanOrEqual(50);
    expect(ok.length).toBe(50); // holds equal costs here, so exactly 50 fit
    expect(refused.every((r) => r.code === "insufficient_user_quota")).toBe(true);
    // Refused requests never reached the upstream.
    expect(upstream.generationRequests().length - before).toBe(50);
    const books = await idleBooks(targets[0]!, email);
    expect(books).toEqual({ balance: 0, held: 0, ledger: 0, holds: 0 });
    // And the admin CLI sees the same balance.
    expect((await adminOk(targets[0]!, "balance", "--email", email)).stdout.at(-1)).toBe("0.00");
  });
});
