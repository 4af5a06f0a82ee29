/**
 * A 1,000-line batch at the default BATCH_CONCURRENCY (issue 38): how long it takes, the books
 * exact (970 charges at the batch price, 30 failures charged nothing, balance = Σ ledger,
 * nothing held), and interactive latency from another organisation measured with and without
 * the batch running — the batch takes a bounded share of the instance and must not starve
 * interactive traffic. Prints the figures docs/performance.md records.
 */
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, type TestServer } from "../support/server";

let server: TestServer;
let batchKey: string;
let batchEmail: string;
let liveKey: string;
const LINES = 1000;

beforeAll(async () => {
  server = await startTestServer({ env: { DEFAULT_KEY_RPM: "1000000" } });
  ({ key: batchKey, email: batchEmail } = await createAccount(server, { usd: 20 }));
  ({ key: liveKey } = await createAccount(server, { usd: 20 }));
});
afterAll(async () => {
  await server?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Interactive demo-chat calls from `clients` sequential clients, until `stop()`; each call's latency in ms. */
async function interactive(clients: number, stop: () => boolean): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; !stop(); i++) {
        const t = performance.now();
        const r = await fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${liveKey}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "demo-chat", max_tokens: 5, messages: [{ role: "user", content: `client ${c} call ${i}` }] }),
        });
        await r.text();
        ms.push(performance.now() - t);
        if (r.status !== 200) failed++;
      }
    }),
  );
  return { ms, failed };
}

describe("a 1,000-line batch beside interactive traffic", () => {
  it("completes with exact books, and interactive latency stays close to its level without the batch", async () => {
    const oa = new OpenAI({ apiKey: batchKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    // Warm up, then the baseline: the same clients with no batch running.
    let n = 0;
    await interactive(2, () => n++ >= 20);
    const t0 = performance.now();
    const quiet = await interactive(2, () => performance.now() - t0 > 10_000);

    const lines = Array.from({ length: LINES }, (_, i) => ({ custom_id: `l${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "demo-chat", max_tokens: 5, messages: [{ role: "user", content: i % 100 < 3 ? `line ${i} [fail]` : `line ${i}` }] } }));
    const input = await oa.files.create({ file: await toFile(Buffer.from(lines.map((l) => JSON.stringify(l)).join("\n")), "scale.jsonl"), purpose: "batch" });
    const created = await oa.batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const started = performance.now();
    let done = false;
    const busyRun = interactive(2, () => done);
    let b = await oa.batches.retrieve(created.id);
    while (b.status !== "completed" && performance.now() - started < 150_000) {
      await sleep(100);
      b = await oa.batches.retrieve(created.id);
    }
    const seconds = (performance.now() - started) / 1000;
    done = true;
    const busy = await busyRun;

    expect(b.status).toBe("completed");
    expect(b.request_counts).toEqual({ total: LINES, completed: 970, failed: 30 });
    const [c] = await server.query<{ charges: number; charged: string }>("select count(*)::int as charges, coalesce(-sum(delta_micro_usd), 0) as charged from ledger_entries where idempotency_key like $1", [`batch:${created.id}:%`]);
    const [l] = await server.query<{ rows: number; free: number; cost: string }>(
      "select count(*)::int as rows, count(*) filter (where status = 502 and cost_micro_usd = 0)::int as free, sum(cost_micro_usd) as cost from request_logs where batch_id = $1",
      [created.id],
    );
    expect(c!.charges).toBe(970);
    expect(l!.rows).toBe(LINES);
    expect(l!.free).toBe(30);
    expect(Number(c!.charged)).toBe(Number(l!.cost));
    expect(Math.round((b as unknown as { cost_usd: number }).cost_usd * 1e6)).toBe(Number(l!.cost));
    const books = await idleBooks(server, batchEmail);
    expect(books).toMatchObject({ held: 0, holds: 0, balance: books.ledger });

    const fig = (r: { ms: number[] }) => `p50 ${pct(r.ms, 50).toFixed(1)} ms, p99 ${pct(r.ms, 99).toFixed(1)} ms over ${r.ms.length} calls`;
    console.log(`1,000-line batch (BATCH_CONCURRENCY default): completed in ${seconds.toFixed(1)} s (${(LINES / seconds).toFixed(0)} lines/s), ${c!.charges} charges, ${l!.free} failures charged 0, cost ${Number(l!.cost)} µUSD`);
    console.log(`interactive demo-chat (2 clients, max_tokens 5) without a batch: ${fig(quiet)}`);
    console.log(`interactive demo-chat (2 clients, max_tokens 5) while it ran:   ${fig(busy)}`);
    // Not starved: every interactive call answered, and their median stays within a small
    // multiple of the quiet one (the batch takes BATCH_CONCURRENCY calls of the instance, no more).
    expect(quiet.failed + busy.failed).toBe(0);
    expect(busy.ms.length).toBeGreaterThan(20);
    expect(pct(busy.ms, 50)).toBeLessThan(Math.max(3 * pct(quiet.ms, 50), pct(quiet.ms, 50) + 150));
  }, 240_000);
});
