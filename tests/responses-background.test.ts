/**
 * Background responses with the official SDK: queued at once, in_progress, completed and
 * billed; cancel (upstream stopped, the hold back, only what was produced charged); a streamed
 * background response resumed with starting_after; the clear refusals.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { textGatewayConfig, textFakeUrls } from "./text-config";
import { until } from "./support/until";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
let key: string;
let email: string;
const oa = () => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  server = await startTestServer({
    config: textGatewayConfig(textFakeUrls(fakes)),
  });
  ({ key, email } = await createAccount(server, { usd: 1 }));
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});


const TEXT = "one two three four five six seven eight nine ten";

describe("background responses", () => {
  it("answers queued at once, then in_progress, then completed, billed as the upstream reports", async () => {
    fakes.anthropic.reset({ text: TEXT, eventDelayMs: 80, usage: { input: 20, output: 10 } });
    const started = Date.now();
    const r = await oa().responses.create({ model: "chat-anthropic", input: "count", background: true });
    expect(Date.now() - started).toBeLessThan(700); // the answer did not wait for the run
    expect(r.status).toBe("queued");
    expect(r.background).toBe(true);
    const running = await until(() => oa().responses.retrieve(r.id), (x) => x.status === "in_progress");
    expect(running.status).toBe("in_progress");
    const done = await until(() => oa().responses.retrieve(r.id), (x) => x.status === "completed");
    expect(done.status).toBe("completed");
    expect(done.id).toBe(r.id);
    expect(done.output_text).toBe(TEXT);
    expect(done.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
    const [row] = await until(
      () => server.query<{ cost_micro_usd: string; status: number }>("select l.cost_micro_usd, l.status from request_logs l where l.model = 'chat-anthropic' and l.account_id = (select account_id from users where email = $1) order by id desc limit 1", [email]),
      (rows) => rows.length > 0,
    );
    expect(Number(row!.cost_micro_usd)).toBe(20 * 1 + 10 * 2);
    // A background response is stored: the next turn can chain on it.
    fakes.anthropic.reset({ text: "Next." });
    const next = await oa().responses.create({ model: "chat-anthropic", input: "more", previous_response_id: r.id });
    expect(next.output_text).toBe("Next.");
  });

  it("cancels: the upstream is stopped, the status is cancelled, only what was produced is charged", async () => {
    fakes.openai.reset({ text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "), eventDelayMs: 100, usage: { input: 5, output: 40 } });
    const r = await oa().responses.create({ model: "chat-openai", input: "long", background: true });
    await until(() => oa().responses.retrieve(r.id), (x) => x.status === "in_progress");
    await sleep(400);
    const c = await oa().responses.cancel(r.id);
    expect(c.status).toBe("cancelled");
    expect((await oa().responses.retrieve(r.id)).status).toBe("cancelled");
    await until(async () => fakes.openai.generationRequests()[0]?.aborted, (a) => a === true);
    expect(fakes.openai.generationRequests()[0]!.aborted).toBe(true);
    const [row] = await until(
      () => server.query<{ cost_micro_usd: string; settlement: string; input_tokens: string; output_tokens: string }>("select cost_micro_usd, settlement, input_tokens, output_tokens from request_logs where model = 'chat-openai' and account_id = (select account_id from users where email = $1) order by id desc limit 1", [email]),
      (rows) => rows.length > 0,
    );
    expect(row!.settlement).toBe("client_disconnect");
    expect(Number(row!.output_tokens)).toBeGreaterThan(0);
    expect(Number(row!.cost_micro_usd)).toBeLessThan(5 + 40 * 2); // not the whole answer
    // What was charged is what the client sees (issue 32, item 9): the partial output and its usage.
    for (const shown of [c, await oa().responses.retrieve(r.id)]) {
      const text = (shown.output[0] as { content: { text: string }[] }).content[0]!.text;
      expect(text).toMatch(/^w0 w1 w2/);
      expect(text).not.toContain("w39");
      expect(shown.output[0]).toMatchObject({ type: "message", status: "incomplete" });
      expect(shown.usage).toMatchObject({ input_tokens: Number(row!.input_tokens), output_tokens: Number(row!.output_tokens), total_tokens: Number(row!.input_tokens) + Number(row!.output_tokens) });
      expect(Math.round(Number((shown.usage as unknown as { cost_usd: string }).cost_usd) * 1e6)).toBe(Number(row!.cost_micro_usd));
    }
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.ledger).toBe(books.balance);
    // Cancelling again answers the same; a finished response cannot be "cancelled" into anything else.
    expect((await oa().responses.cancel(r.id)).status).toBe("cancelled");
    // An in-progress id cannot be chained on.
    fakes.openai.reset({ text: TEXT, eventDelayMs: 100 });
    const busy = await oa().responses.create({ model: "chat-openai", input: "x", background: true });
    const e = await oa().responses.create({ model: "chat-openai", input: "y", previous_response_id: busy.id }).catch((x) => x);
    expect(e.status).toBe(400);
    expect(e.message).toContain(busy.id);
    await oa().responses.cancel(busy.id);
  });

  it("streams in the background and resumes with starting_after", async () => {
    fakes.gemini.reset({ text: TEXT, eventDelayMs: 60 });
    const stream = await oa().responses.create({ model: "chat-gemini", input: "count", background: true, stream: true });
    const first: any[] = [];
    for await (const ev of stream) {
      first.push(ev);
      if (first.length === 5) break; // the client goes away mid-stream
    }
    const id = first[0].response.id;
    expect(first[0].response.background).toBe(true);
    const last = first[first.length - 1].sequence_number;
    const resumed = await oa().responses.retrieve(id, { stream: true, starting_after: last });
    const rest: any[] = [];
    for await (const ev of resumed) rest.push(ev);
    const seqs = [...first, ...rest].map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, i) => i)); // contiguous, nothing lost or repeated
    const done = rest.find((e) => e.type === "response.completed");
    expect(done.response.id).toBe(id);
    expect(done.response.output[0].content[0].text).toBe(TEXT);
    // From the start again, once finished: replayed from the stored events.
    const again: any[] = [];
    for await (const ev of await oa().responses.retrieve(id, { stream: true })) again.push(ev);
    expect(again.map((e) => e.sequence_number)).toEqual(seqs);
  });

  it("resumes on another instance while the run goes on", async () => {
    const other = await startTestServer({ config: textGatewayConfig(textFakeUrls(fakes)), shareWith: server });
    try {
      fakes.anthropic.reset({ text: Array.from({ length: 30 }, (_, i) => `w${i}`).join(" "), eventDelayMs: 100 });
      const stream = await oa().responses.create({ model: "chat-anthropic", input: "count", background: true, stream: true });
      const first: any[] = [];
      for await (const ev of stream) {
        first.push(ev);
        if (first.length === 4) break;
      }
      const id = first[0].response.id;
      const elsewhere = new OpenAI({ apiKey: key, baseURL: `${other.url}/v1`, maxRetries: 0 });
      const rest: any[] = [];
      for await (const ev of await elsewhere.responses.retrieve(id, { stream: true, starting_after: first[3].sequence_number })) rest.push(ev);
      const seqs = [...first, ...rest].map((e) => e.sequence_number);
      expect(seqs).toEqual(seqs.map((_, i) => i));
      expect(rest.at(-1).type).toBe("response.completed");
    } finally {
      await other.dispose();
    }
  });

  it("refuses what cannot work, clearly", async () => {
    const e1 = await oa().responses.create({ model: "chat-openai", input: "x", background: true, store: false }).catch((x) => x);
    expect(e1.status).toBe(400);
    expect(e1.message).toContain("background");
    const plain = await oa().responses.create({ model: "chat-openai", input: "x" });
    const e2 = await oa().responses.cancel(plain.id).catch((x) => x);
    expect(e2.status).toBe(400);
    const e3 = await fetch(`${server.url}/v1/responses/${plain.id}?stream=true`, { headers: { authorization: `Bearer ${key}` } });
    expect(e3.status).toBe(400);
    const e4 = await oa().responses.cancel("resp_unknown").catch((x) => x);
    expect(e4.status).toBe(404);
  });
});
