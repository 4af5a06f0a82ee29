/**
 * A member's monthly cap under load, through the real servers (two instances sharing one
 * PostgreSQL database, leases on): 100 parallel requests with the member's key, each held and
 * charged exactly 0.05 USD, against a 0.50 USD cap: exactly 10 are served, the rest get 402
 * member_cap_exceeded, the month's spend is the cap to the micro-dollar, nothing stays held, and
 * the organisation's balance equals its ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

let text: FakeTextUpstream;
const servers: TestServer[] = [];
let a: TestServer;
let b: TestServer;

const config = () => ({
  upstreams: [{ id: "txt", protocol: "openai", baseUrl: text.baseUrl, apiKey: text.apiKey, timeoutMs: 20_000 }],
  // 10 output tokens at 5000 USD per million: 0.05 USD a request, held exactly (max_tokens 10).
  models: [{ id: "chat-dear", kind: "text", upstream: "txt", upstreamModel: "gpt-fake", price: { inputPerMTok: 0, outputPerMTok: 5000 } }],
});

beforeAll(async () => {
  if (!usesPostgres()) return;
  text = await startFakeOpenAI();
  text.reset({ text: "one two three four five six seven eight nine ten", usage: { input: 7, output: 10 }, responseDelayMs: 15 });
  a = await startTestServer({ config: config() });
  servers.push(a);
  b = await startTestServer({ config: config(), shareWith: a });
  servers.push(b);
}, 180_000);

afterAll(async () => {
  for (const s of servers.reverse()) await s.dispose();
  await text?.close();
});

describe.skipIf(!usesPostgres())("a member's monthly cap, 100 parallel requests on two instances", () => {
  it("serves exactly what the cap covers and refuses the rest with 402 naming it", async () => {
    const acct = await createAccount(a, { usd: "20" });
    const [m] = await a.query<{ account_id: string; user_id: string }>(
      "select m.account_id, m.user_id from memberships m join users u on u.id = m.user_id where u.email = $1",
      [acct.email],
    );
    // The key belongs to the user (the CLI records no creator: migration 0006's rule, made explicit here).
    await a.query("update api_keys set created_by_user_id = $2 where account_id = $1", [m!.account_id, m!.user_id]);
    await a.query("update memberships set monthly_cap_micro_usd = 500000 where account_id = $1 and user_id = $2", [m!.account_id, m!.user_id]);
    const results = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const r = await fetch(`${(i % 2 ? a : b).url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${acct.key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "chat-dear", max_tokens: 10, messages: [{ role: "user", content: `r${i}` }] }),
        });
        const body = (await r.json()) as { error?: { code: string; message: string } };
        return { status: r.status, code: body.error?.code, message: body.error?.message };
      }),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(90);
    const refused = results.find((r) => r.status === 402)!;
    expect(refused.code).toBe("member_cap_exceeded");
    expect(refused.message).toContain("$0.50");
    const books = await idleBooks(a, acct.email, 8_000);
    expect(books).toMatchObject({ held: 0, holds: 0 });
    expect(books.balance).toBe(books.ledger);
    expect(books.balance).toBe(20_000_000 - 500_000);
    const [after] = await a.query<{ spent: string; held: string }>("select month_spent_micro_usd as spent, held_micro_usd as held from memberships where account_id = $1 and user_id = $2", [
      m!.account_id,
      m!.user_id,
    ]);
    expect(Number(after!.spent)).toBe(500_000);
    expect(Number(after!.held)).toBe(0);
    expect(a.logs() + b.logs()).not.toContain("deadlock detected");
  }, 120_000);
});
