/**
 * Batches through the vendors' own batch APIs (decision 0070): a batch whose model is served by
 * an OpenAI, Anthropic or Gemini upstream set to `batches: "native"` is submitted as one vendor
 * batch, polled by the scheduler (two instances on one database, so every poll and every end
 * races), and its lines end through the runner's money path: one charge per line at the batch
 * price from the vendor's usage, failures refunded, a log row per line, the books balanced.
 * Cancel reaches the vendor and returns the hold; an upstream left to the gateway still runs
 * its lines itself; a refused submit gives the lines to the gateway runner.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBatchVendors, USAGE, VENDOR_KEYS, type BatchVendors } from "./fakes/batch-vendors";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { until } from "./support/until";
import { startTestServer, type TestServer } from "./support/server";

let vendors: BatchVendors;
let server: TestServer;
let second: TestServer;
let key: string;
let email: string;

/** $2 in / $8 out per million, half off in batches: 1 µUSD per input token, 4 per output token. */
const PRICE = { inputPerMTok: 2, outputPerMTok: 8, batchDiscount: 0.5 };
const LINE_COST = USAGE.input * 1 + USAGE.output * 4;

beforeAll(async () => {
  vendors = await startBatchVendors();
  const config = {
    upstreams: [
      { id: "oa", protocol: "openai", baseUrl: `${vendors.url}/openai/v1`, apiKey: VENDOR_KEYS.openai, batches: "native" },
      { id: "an", protocol: "anthropic", baseUrl: `${vendors.url}/anthropic`, apiKey: VENDOR_KEYS.anthropic, batches: "native" },
      { id: "gm", protocol: "gemini", baseUrl: `${vendors.url}/gemini`, apiKey: VENDOR_KEYS.gemini, batches: "native" },
      { id: "local", protocol: "demo" },
    ],
    models: [
      { id: "gpt-b", kind: "text", upstream: "oa", upstreamModel: "gpt-4.1-mini-2025-04-14", price: PRICE },
      { id: "claude-b", kind: "text", upstream: "an", upstreamModel: "claude-sonnet-4-5-20250929", price: PRICE },
      { id: "gemini-b", kind: "text", upstream: "gm", upstreamModel: "gemini-2.5-flash", price: PRICE },
      { id: "demo-b", kind: "text", upstream: "local", upstreamModel: "demo", price: PRICE },
    ],
  };
  // A short lease: an instance killed while it polls leaves its vendor batch to the other within seconds.
  const env = { DEFAULT_KEY_RPM: "100000", BATCH_VENDOR_POLL_S: "0", BATCH_LINE_LEASE_S: "3" };
  server = await startTestServer({ config, env });
  second = await startTestServer({ config, env, shareWith: server });
  ({ key, email } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  await second?.dispose();
  await server?.dispose();
  await vendors?.close();
});

const oa = () => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
const chatLine = (id: string, model: string, text: string) => ({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: { model, messages: [{ role: "user", content: text }], max_tokens: 600 } });

async function openaiBatch(model: string, texts: string[]) {
  const file = await oa().files.create({ file: await toFile(Buffer.from(jsonl(texts.map((t, i) => chatLine(`req-${i}`, model, t)))), "in.jsonl"), purpose: "batch" });
  return oa().batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
}

/** The batch's books: a log row per line, a charge per succeeded line, each at the batch price of the vendor's usage; the account balanced. */
async function checkBooks(batchId: string, succeeded: number, lines: number) {
  const logs = await server.query<{ request_id: string; status: number; cost_micro_usd: string; input_tokens: number; output_tokens: number; upstream_id: string }>(
    "select request_id, status, cost_micro_usd, input_tokens, output_tokens, upstream_id from request_logs where batch_id = $1",
    [batchId],
  );
  const charges = await server.query<{ request_id: string; delta: string }>("select request_id, delta_micro_usd as delta from ledger_entries where idempotency_key like $1", [`batch:${batchId}:%`]);
  expect(logs).toHaveLength(lines);
  expect(charges).toHaveLength(succeeded);
  for (const c of charges) {
    const log = logs.find((l) => l.request_id === c.request_id)!;
    expect([Number(log.input_tokens), Number(log.output_tokens)]).toEqual([USAGE.input, USAGE.output]);
    expect(Number(c.delta)).toBe(-LINE_COST);
    expect(Number(log.cost_micro_usd)).toBe(LINE_COST);
  }
  expect(logs.filter((l) => l.status >= 400).map((l) => Number(l.cost_micro_usd))).toEqual(Array(lines - succeeded).fill(0));
  const books = await idleBooks(server, email, 10_000);
  expect(books.held).toBe(0);
  expect(books.balance).toBe(books.ledger);
  return logs;
}

describe("native vendor batches", () => {
  it("OpenAI: one JSONL file and one batch at the vendor, polled until it ends, one charge per line at the batch price", async () => {
    const before = vendors.batches.length;
    const b = await openaiBatch("gpt-b", ["hello", "please FAIL", "bye"]);
    const done = await until(() => oa().batches.retrieve(b.id), (x) => x.status === "completed");
    expect(done.status).toBe("completed");
    expect(done.request_counts).toMatchObject({ total: 3, completed: 2, failed: 1 });
    expect(JSON.stringify(done)).not.toContain("batch_fake"); // the vendor's id never shows
    // One vendor batch; its file carried the converted requests with the upstream model, signed with the upstream's key.
    const vb = vendors.batches.slice(before);
    expect(vb).toHaveLength(1);
    expect(vb[0]!.polls).toBeGreaterThanOrEqual(2);
    const upload = vendors.received.find((r) => r.path === "/openai/v1/files" && r.body.includes("gpt-4.1-mini"))!;
    expect(upload.headers.authorization).toBe(`Bearer ${VENDOR_KEYS.openai}`);
    const sent = JSON.parse(upload.body) as { purpose: string; content: string };
    expect(sent.purpose).toBe("batch");
    const lines = sent.content.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(["line-0", "line-1", "line-2"]);
    expect(lines[0]).toMatchObject({ method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4.1-mini-2025-04-14", messages: [{ role: "user", content: "hello" }], max_tokens: 600 } });
    const create = vendors.received.find((r) => r.path === "/openai/v1/batches" && r.method === "POST" && r.body.includes(vb[0]!.inputFileId!))!;
    // Tagged with the gateway's vendor batch id, to be found again if the submitter dies before keeping the vendor's.
    const [row] = await server.query<{ id: string }>("select id from vendor_batches where batch_id = $1", [b.id]);
    expect(JSON.parse(create.body)).toEqual({ input_file_id: vb[0]!.inputFileId, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { gateway_batch: row!.id } });
    // The client's output file: its custom ids, the answer under the public model id.
    const out = (await (await oa().files.content(done.output_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(out.map((l) => l.custom_id).sort()).toEqual(["req-0", "req-2"]);
    expect(out[0].response.body).toMatchObject({ model: "gpt-b", choices: [{ message: { content: "batched answer" } }], usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } });
    const err = (await (await oa().files.content(done.error_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(err).toHaveLength(1);
    expect(err[0]).toMatchObject({ custom_id: "req-1", response: { status_code: 400 } });
    const logs = await checkBooks(b.id, 2, 3);
    expect(new Set(logs.map((l) => l.upstream_id))).toEqual(new Set(["oa"]));
  });

  it("Anthropic: requests[] to /v1/messages/batches, results mapped back by custom id", async () => {
    const before = vendors.batches.length;
    const an = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const params = (text: string) => ({ model: "claude-b", max_tokens: 600, messages: [{ role: "user" as const, content: text }] });
    const b = await an.messages.batches.create({ requests: [{ custom_id: "one", params: params("hello") }, { custom_id: "two", params: params("FAIL here") }] });
    const ended = await until(() => an.messages.batches.retrieve(b.id), (x) => x.processing_status === "ended");
    expect(ended.request_counts).toMatchObject({ succeeded: 1, errored: 1 });
    const vb = vendors.batches.slice(before);
    expect(vb).toHaveLength(1);
    const create = vendors.received.find((r) => r.path === "/anthropic/v1/messages/batches" && r.method === "POST" && r.body.includes("FAIL here"))!;
    expect(create.headers["x-api-key"]).toBe(VENDOR_KEYS.anthropic);
    expect(create.headers["anthropic-version"]).toBe("2023-06-01");
    expect(JSON.parse(create.body)).toEqual({
      requests: [
        { custom_id: "line-0", params: { model: "claude-sonnet-4-5-20250929", max_tokens: 600, messages: [{ role: "user", content: "hello" }] } },
        { custom_id: "line-1", params: { model: "claude-sonnet-4-5-20250929", max_tokens: 600, messages: [{ role: "user", content: "FAIL here" }] } },
      ],
    });
    expect(vendors.received.some((r) => r.path === `/anthropic/v1/messages/batches/${vb[0]!.id}/results`)).toBe(true);
    const results: { custom_id: string; result: { type: string; message?: { model: string; usage: { input_tokens: number } } } }[] = [];
    for await (const r of await an.messages.batches.results(b.id)) results.push(r as never);
    const one = results.find((r) => r.custom_id === "one")!;
    expect(one.result).toMatchObject({ type: "succeeded", message: { model: "claude-b", usage: { input_tokens: USAGE.input } } });
    expect(results.find((r) => r.custom_id === "two")!.result.type).toBe("errored");
    await checkBooks(b.id, 1, 2);
  });

  it("converts a line whose dialect is not the vendor's, as a single request would be: Chat Completions lines to Anthropic's batch", async () => {
    const before = vendors.batches.length;
    const b = await openaiBatch("claude-b", ["hello"]);
    const done = await until(() => oa().batches.retrieve(b.id), (x) => x.status === "completed");
    expect(done.request_counts).toMatchObject({ total: 1, completed: 1 });
    const vb = vendors.batches.slice(before);
    expect(vb).toHaveLength(1);
    expect(vb[0]!.vendor).toBe("anthropic");
    expect(vb[0]!.requests[0]![1]).toMatchObject({ model: "claude-sonnet-4-5-20250929", max_tokens: 600, messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }] });
    const out = JSON.parse((await (await oa().files.content(done.output_file_id!)).text()).trim());
    expect(out.response.body).toMatchObject({ object: "chat.completion", model: "claude-b", choices: [{ message: { role: "assistant", content: "batched answer" } }], usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } });
    await checkBooks(b.id, 1, 1);
  });

  it("Gemini: inline batchGenerateContent at the vendor, inlinedResponses mapped back by key", async () => {
    const before = vendors.batches.length;
    const g = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
    const req = (k: string, text: string) => ({ contents: [{ role: "user", parts: [{ text }] }], config: { maxOutputTokens: 600 }, metadata: { key: k } });
    const job = await g.batches.create({ model: "gemini-b", src: [req("a", "hello"), req("b", "FAIL now"), req("c", "bye")] });
    const done = await until(() => g.batches.get({ name: job.name! }), (j) => j.state === "JOB_STATE_SUCCEEDED");
    expect(done.state).toBe("JOB_STATE_SUCCEEDED");
    const vb = vendors.batches.slice(before);
    expect(vb).toHaveLength(1);
    const create = vendors.received.find((r) => r.path === "/gemini/v1beta/models/gemini-2.5-flash:batchGenerateContent" && r.body.includes("FAIL now"))!;
    expect(create.headers["x-goog-api-key"]).toBe(VENDOR_KEYS.gemini);
    const sent = JSON.parse(create.body).batch.inputConfig.requests.requests;
    expect(sent.map((r: { metadata: { key: string } }) => r.metadata.key)).toEqual(["line-0", "line-1", "line-2"]);
    expect(sent[0].request).toMatchObject({ contents: [{ role: "user", parts: [{ text: "hello" }] }], generationConfig: { maxOutputTokens: 600 } });
    const out = done.dest!.inlinedResponses!;
    expect(out).toHaveLength(3);
    expect(out[0]!.response!.candidates![0]!.content!.parts![0]!.text).toBe("batched answer");
    expect(out[1]!.error).toBeTruthy();
    expect(out[2]!.response!.usageMetadata!.promptTokenCount).toBe(USAGE.input);
    await checkBooks(job.name!.split("/")[1]!, 2, 3);
  });

  it("an instance killed while the vendor batch runs: after its restart each line is still charged once (Gemini answers without keys)", async () => {
    vendors.holdOpen = true;
    vendors.geminiKeys = false;
    try {
      const before = vendors.batches.length;
      const g = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
      const req = (text: string) => ({ contents: [{ role: "user", parts: [{ text }] }], config: { maxOutputTokens: 600 } });
      const job = await g.batches.create({ model: "gemini-b", src: [req("first"), req("FAIL second"), req("third")] });
      await until(async () => vendors.batches.slice(before).find((x) => x.polls > 1), (x) => !!x);
      await second.stop("SIGKILL");
      await second.restart();
      vendors.holdOpen = false;
      const done = await until(() => g.batches.get({ name: job.name! }), (j) => j.state === "JOB_STATE_SUCCEEDED");
      expect(done.state).toBe("JOB_STATE_SUCCEEDED");
      expect(vendors.batches.slice(before)).toHaveLength(1);
      const out = done.dest!.inlinedResponses!;
      expect([!!out[0]!.response, !!out[1]!.error, !!out[2]!.response]).toEqual([true, true, true]);
      await checkBooks(job.name!.split("/")[1]!, 2, 3);
    } finally {
      vendors.holdOpen = false;
      vendors.geminiKeys = true;
    }
  });

  it("cancel reaches the vendor; lines it did not run are refunded and the hold comes back", async () => {
    vendors.holdOpen = true;
    try {
      const before = vendors.batches.length;
      const b = await openaiBatch("gpt-b", ["one", "two"]);
      await until(async () => vendors.batches.slice(before).find((x) => x.polls > 0), (x) => !!x);
      const cancelling = await oa().batches.cancel(b.id);
      expect(["cancelling", "cancelled"]).toContain(cancelling.status);
      const done = await until(() => oa().batches.retrieve(b.id), (x) => x.status === "cancelled");
      expect(done.status).toBe("cancelled");
      const vb = vendors.batches.slice(before)[0]!;
      expect(vendors.received.some((r) => r.method === "POST" && r.path === `/openai/v1/batches/${vb.id}/cancel`)).toBe(true);
      const lines = await server.query<{ status: string }>("select status from batch_lines where batch_id = $1", [b.id]);
      expect(lines.map((l) => l.status)).toEqual(["cancelled", "cancelled"]);
      await checkBooks(b.id, 0, 0);
    } finally {
      vendors.holdOpen = false;
    }
  });

  it("a submitter gone after the vendor took its batch: another instance finds it by its tag and polls it; each line runs once, at the vendor", async () => {
    // The vendor keeps the batch but its answer never comes back (the submitter killed, or stuck
    // past its lease): the other instance takes the vendor batch when the lease ends.
    for (const vendor of ["openai", "gemini"] as const) {
      let release!: () => void;
      vendors.holdSubmit = { recorded: true, until: new Promise<void>((r) => (release = r)) };
      try {
        const before = vendors.batches.length;
        const seen = vendors.received.length;
        const g = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
        const req = (text: string) => ({ contents: [{ role: "user", parts: [{ text }] }], config: { maxOutputTokens: 600 } });
        const id =
          vendor === "openai" ? (await openaiBatch("gpt-b", ["one", "FAIL two"])).id : (await g.batches.create({ model: "gemini-b", src: [req("one"), req("FAIL two")] })).name!.split("/")[1]!;
        const done = async () => (await server.query<{ status: string }>("select status from batches where id = $1", [id]))[0]!.status;
        expect(await until(done, (s) => s === "completed", 60_000)).toBe("completed");
        const mine = vendors.batches.slice(before);
        expect(mine).toHaveLength(1);
        const [row] = await server.query<{ status: string; vendor_id: string; lines: number }>("select status, vendor_id, lines from vendor_batches where batch_id = $1", [id]);
        expect(row).toMatchObject({ status: "ended", vendor_id: mine[0]!.id, lines: 2 });
        // Found by the tag it was created with; never run by the gateway as well.
        expect(vendor === "openai" ? mine[0]!.metadata : mine[0]!.displayName).toEqual(vendor === "openai" ? { gateway_batch: expect.stringMatching(/^vb_/) } : expect.stringMatching(/^vb_/));
        const received = vendors.received.slice(seen);
        expect(received.some((r) => r.method === "GET" && (r.path.startsWith("/openai/v1/batches?") || r.path.startsWith("/gemini/v1beta/batches?")))).toBe(true);
        expect(received.some((r) => /chat\/completions|:generateContent$/.test(r.path))).toBe(false);
        await checkBooks(id, 1, 2);
        // The late answer reaches the submitter at last: the batch is already polled, nothing is cancelled.
        release();
        await new Promise((r) => setTimeout(r, 500));
        expect(mine[0]!.cancelled).toBe(false);
      } finally {
        release();
        vendors.holdSubmit = null;
      }
    }
  });

  it("a vendor that takes a batch after its lines went back to the gateway runner has it cancelled (Anthropic keeps no tag to find it by)", async () => {
    let release!: () => void;
    vendors.holdSubmit = { recorded: false, until: new Promise<void>((r) => (release = r)) };
    try {
      const before = vendors.batches.length;
      const an = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
      const b = await an.messages.batches.create({ requests: [{ custom_id: "one", params: { model: "claude-b", max_tokens: 600, messages: [{ role: "user", content: "hello" }] } }] });
      // Past the submitter's lease, its line goes to the gateway runner (which calls the vendor's interactive API: not served here, so it fails and is refunded).
      const ended = await until(() => an.messages.batches.retrieve(b.id), (x) => x.processing_status === "ended", 60_000);
      expect(ended.request_counts.errored).toBe(1);
      expect(vendors.batches.length).toBe(before);
      // Then the vendor takes the batch and answers: the submitter cancels it before it runs.
      release();
      const late = await until(async () => vendors.batches.slice(before)[0], (x) => !!x?.cancelled);
      expect(vendors.received.some((r) => r.method === "POST" && r.path === `/anthropic/v1/messages/batches/${late!.id}/cancel`)).toBe(true);
      const [row] = await server.query<{ status: string; error: string }>("select status, error from vendor_batches where batch_id = $1", [b.id]);
      expect(row!.status).toBe("failed");
      expect(row!.error).toContain("cancelled at the vendor");
      const books = await idleBooks(server, email, 10_000);
      expect(books.balance).toBe(books.ledger);
      expect(books.held).toBe(0);
    } finally {
      release();
      vendors.holdSubmit = null;
    }
  });

  it("an upstream left to the gateway runs its lines itself; a refused submit gives them to the gateway runner", async () => {
    const before = vendors.batches.length;
    const local = await openaiBatch("demo-b", ["hello", "bye"]);
    expect((await until(() => oa().batches.retrieve(local.id), (x) => x.status === "completed")).status).toBe("completed");
    expect(vendors.batches.length).toBe(before);
    // The vendor refuses the batch (its enqueued-token limit): the gateway runs the lines instead.
    vendors.refuseNext = 429;
    const gw = await openaiBatch("gpt-b", ["hello"]);
    const done = await until(() => oa().batches.retrieve(gw.id), (x) => x.status === "completed" || x.status === "failed");
    expect(vendors.batches.length).toBe(before);
    // The gateway's own call reached the vendor's interactive API (here: not served by the fake, so the line fails and is refunded).
    expect(done.request_counts!.total).toBe(1);
    const [vbRow] = await server.query<{ status: string; error: string }>("select status, error from vendor_batches where batch_id = $1", [gw.id]);
    expect(vbRow).toMatchObject({ status: "failed" });
    expect(vbRow!.error).toContain("submit");
    const books = await idleBooks(server, email, 10_000);
    expect(books.balance).toBe(books.ledger);
    expect(books.held).toBe(0);
  });
});
