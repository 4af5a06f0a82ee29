/**
 * Files and batches with the official SDKs against the demo upstream (issue 38): upload, list,
 * retrieve, content, delete and the 413; batches run by the gateway, one hold for the batch,
 * one charge per succeeded line at the batch price, failed and cancelled lines refunded,
 * one signed webhook, and the books balanced across a worker crash; another organisation's
 * ids answer 404 on every route.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, type TestServer } from "./support/server";
import { until } from "./support/until";

const SECRET = "batch-secret-42";
let server: TestServer;
let hooks: WebhookReceiver;
let key: string;
let email: string;
let other: string;
const oa = (k = key) => new OpenAI({ apiKey: k, baseURL: `${server.url}/v1`, maxRetries: 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  hooks = await startWebhookReceiver({ secret: SECRET });
  server = await startTestServer({
    env: { DEFAULT_KEY_RPM: "100000", FILES_MAX_MB: "1", BATCH_LINE_LEASE_S: "2", BATCH_CONCURRENCY: "8", WEBHOOK_ALLOW_HOSTS: hooks.hostPort },
  });
  ({ key, email } = await createAccount(server, { usd: 5 }));
  ({ key: other } = await createAccount(server, { usd: 1 }));
});
afterAll(async () => {
  await server?.dispose();
  await hooks?.close();
});


const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join("\n") + "\n";

describe("files", () => {
  it("uploads, lists, retrieves, reads back and deletes with the openai SDK", async () => {
    const text = "hello files\n".repeat(100);
    const f = await oa().files.create({ file: await toFile(Buffer.from(text), "notes.txt"), purpose: "user_data" });
    expect(f).toMatchObject({ object: "file", bytes: text.length, filename: "notes.txt", purpose: "user_data", status: "processed" });
    expect(f.id).toMatch(/^file-/);
    expect(await oa().files.retrieve(f.id)).toMatchObject({ id: f.id, bytes: text.length });
    expect(await (await oa().files.content(f.id)).text()).toBe(text);
    const batchFile = await oa().files.create({ file: await toFile(Buffer.from("{}\n"), "in.jsonl"), purpose: "batch" });
    expect(batchFile.expires_at).toBeGreaterThan(Date.now() / 1000 + 29 * 86400); // 30 days by default
    const all = await oa().files.list();
    expect(all.data.map((x) => x.id)).toEqual([batchFile.id, f.id]);
    const page = await oa().files.list({ limit: 1 });
    expect(page.data.map((x) => x.id)).toEqual([batchFile.id]);
    expect(page.has_more).toBe(true);
    const next = await oa().files.list({ limit: 1, after: batchFile.id });
    expect(next.data.map((x) => x.id)).toEqual([f.id]);
    expect((await oa().files.list({ purpose: "batch" })).data.map((x) => x.id)).toEqual([batchFile.id]);
    expect(await oa().files.delete(f.id)).toMatchObject({ id: f.id, deleted: true });
    expect(await oa().files.retrieve(f.id).catch((e) => e.status)).toBe(404);
  });

  it("refuses a file over the limit with a 413 naming it, and a bad purpose with a 400", async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 97);
    const e = await oa()
      .files.create({ file: await toFile(big, "big.txt"), purpose: "user_data" })
      .catch((x) => x);
    expect(e.status).toBe(413);
    expect(e.message).toContain("1 MB");
    const bad = await oa()
      .files.create({ file: await toFile(Buffer.from("x"), "x.txt"), purpose: "nonsense" as "batch" })
      .catch((x) => x);
    expect(bad.status).toBe(400);
    expect(bad.message).toContain("purpose");
  });

  it("answers 404 for another organisation's file on every route", async () => {
    const f = await oa().files.create({ file: await toFile(Buffer.from("secret"), "s.txt"), purpose: "user_data" });
    const them = oa(other);
    expect(await them.files.retrieve(f.id).catch((e) => e.status)).toBe(404);
    expect(await them.files.content(f.id).catch((e) => e.status)).toBe(404);
    expect(await them.files.delete(f.id).catch((e) => e.status)).toBe(404);
    expect((await them.files.list()).data).toEqual([]);
    expect(await oa().files.retrieve(f.id)).toMatchObject({ id: f.id });
  });
});

describe("files (Anthropic's Files API shape)", () => {
  it("uploads, lists, reads metadata, downloads and deletes with the anthropic SDK's beta files client; another organisation gets 404", async () => {
    const an = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const betas = ["files-api-2025-04-14" as const];
    const text = "a document for claude\n".repeat(20);
    const f = await an.beta.files.upload({ file: await toFile(Buffer.from(text), "doc.txt", { type: "text/plain" }), betas });
    expect(f).toMatchObject({ type: "file", filename: "doc.txt", mime_type: "text/plain", size_bytes: text.length, downloadable: true });
    expect(f.id).toMatch(/^file-/);
    expect(new Date(f.created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await an.beta.files.retrieveMetadata(f.id, { betas })).toMatchObject({ id: f.id, mime_type: "text/plain" });
    expect(await (await an.beta.files.download(f.id, { betas })).text()).toBe(text);
    const second = await an.beta.files.upload({ file: await toFile(Buffer.from("two"), "two.txt", { type: "text/plain" }), betas });
    const seen: string[] = [];
    for await (const x of an.beta.files.list({ limit: 1, betas })) seen.push(x.id);
    expect(seen.slice(0, 2)).toEqual([second.id, f.id]); // newest first, one page at a time
    const them = new Anthropic({ apiKey: other, baseURL: server.url, maxRetries: 0 });
    expect(await them.beta.files.retrieveMetadata(f.id, { betas }).catch((e) => e.status)).toBe(404);
    const e = await them.beta.files.download(f.id, { betas }).catch((x) => x);
    expect(e.status).toBe(404);
    expect(e.error).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    expect(await an.beta.files.delete(f.id, { betas })).toEqual({ id: f.id, type: "file_deleted" });
    expect(await an.beta.files.retrieveMetadata(f.id, { betas }).catch((x) => x.status)).toBe(404);
    // The same file is an OpenAI File to an OpenAI client.
    expect(await oa().files.retrieve(second.id)).toMatchObject({ object: "file", bytes: 3, purpose: "user_data" });
  });
});

/** What a demo-chat line costs at its batch price (half of $0.50 / $1.50 per million). */
const demoBatchCost = (input: number, output: number) => Math.ceil((input * 250_000 + output * 750_000) / 1_000_000);

async function batchBooks(batchId: string) {
  const logs = await server.query<{ request_id: string; cost_micro_usd: string; input_tokens: string; output_tokens: string; status: number; settlement: string }>(
    "select request_id, cost_micro_usd, input_tokens, output_tokens, status, settlement from request_logs where batch_id = $1",
    [batchId],
  );
  const charges = await server.query<{ request_id: string; delta: string }>("select request_id, delta_micro_usd as delta from ledger_entries where idempotency_key like $1", [`batch:${batchId}:%`]);
  return { logs, charges };
}

const chatLine = (i: number, text: string) => ({ custom_id: `req-${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "demo-chat", messages: [{ role: "user", content: text }], max_tokens: 50 } });

describe("batches (OpenAI dialect)", () => {
  it("runs a demo-chat batch: one hold, each line charged once at the batch price, the failure refunded, output and error files, one signed webhook", async () => {
    const before = hooks.received.length;
    const lines = [0, 1, 2, 3, 4].map((i) => chatLine(i, i === 3 ? "please [fail] now" : `tell me about number ${i}`));
    const input = await oa().files.create({ file: await toFile(Buffer.from(jsonl(lines)), "in.jsonl"), purpose: "batch" });
    const created = await oa().batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { job: "nightly" }, webhook: hooks.url, webhook_secret: SECRET } as never);
    expect(created).toMatchObject({ object: "batch", status: "in_progress", input_file_id: input.id, request_counts: { total: 5 }, metadata: { job: "nightly" } });
    const done = await until(() => oa().batches.retrieve(created.id), (b) => b.status === "completed");
    expect(done.status).toBe("completed");
    expect(done.request_counts).toEqual({ total: 5, completed: 4, failed: 1 });
    const out = (await (await oa().files.content(done.output_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(out.map((l) => l.custom_id)).toEqual(["req-0", "req-1", "req-2", "req-4"]);
    for (const l of out) expect(l).toMatchObject({ response: { status_code: 200, body: { object: "chat.completion", model: "demo-chat" } }, error: null });
    const err = (await (await oa().files.content(done.error_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(err).toHaveLength(1);
    expect(err[0]).toMatchObject({ custom_id: "req-3", response: { status_code: 502 } });
    // The books, line by line: 4 charges at the batch price, the failure logged and charged nothing.
    const { logs, charges } = await batchBooks(created.id);
    expect(logs).toHaveLength(5);
    expect(charges).toHaveLength(4);
    for (const c of charges) {
      const log = logs.find((l) => l.request_id === c.request_id)!;
      expect(Number(c.delta)).toBe(-demoBatchCost(Number(log.input_tokens), Number(log.output_tokens)));
      expect(Number(log.cost_micro_usd)).toBe(-Number(c.delta));
    }
    expect(logs.filter((l) => l.status === 502).map((l) => Number(l.cost_micro_usd))).toEqual([0]);
    const total = charges.reduce((a, c) => a - Number(c.delta), 0);
    expect(Math.round((done as unknown as { cost_usd: number }).cost_usd * 1e6)).toBe(total);
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.holds).toBe(0);
    expect(books.ledger).toBe(books.balance);
    // One signed webhook with the finished batch.
    const got = await hooks.waitFor(before + 1);
    const mine = got.slice(before).filter((h) => (h.json as { id?: string }).id === created.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.signatureOk).toBe(true);
    expect(mine[0]!.json).toMatchObject({ id: created.id, status: "completed", request_counts: { completed: 4, failed: 1 } });
    // Polling again changes nothing.
    for (let i = 0; i < 3; i++) await oa().batches.retrieve(created.id);
    expect((await batchBooks(created.id)).charges).toHaveLength(4);
    const listed = await oa().batches.list();
    expect(listed.data.map((b) => b.id)).toContain(created.id);
  });

  it("cancels: lines not started are never charged, the unspent hold comes back", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => chatLine(i, `line ${i}`));
    const input = await oa().files.create({ file: await toFile(Buffer.from(jsonl(lines)), "in.jsonl"), purpose: "batch" });
    const created = await oa().batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const c = await oa().batches.cancel(created.id);
    expect(["cancelling", "cancelled"]).toContain(c.status);
    const done = await until(() => oa().batches.retrieve(created.id), (b) => b.status === "cancelled");
    expect(done.status).toBe("cancelled");
    const { logs, charges } = await batchBooks(created.id);
    expect(charges.length).toBe(done.request_counts!.completed);
    expect(logs.length).toBe(done.request_counts!.completed + done.request_counts!.failed);
    expect(done.request_counts!.completed).toBeLessThan(400);
    const err = (await (await oa().files.content(done.error_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(err.filter((l) => l.error?.code === "batch_cancelled").length).toBe(400 - logs.length);
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.ledger).toBe(books.balance);
  });

  it("runs an embeddings batch at the embedding model's batch price", async () => {
    const lines = ["alpha", "beta gamma", "delta epsilon zeta"].map((input, i) => ({ custom_id: `e-${i}`, method: "POST", url: "/v1/embeddings", body: { model: "demo-embed", input } }));
    const input = await oa().files.create({ file: await toFile(Buffer.from(jsonl(lines)), "emb.jsonl"), purpose: "batch" });
    const created = await oa().batches.create({ input_file_id: input.id, endpoint: "/v1/embeddings", completion_window: "24h" });
    const done = await until(() => oa().batches.retrieve(created.id), (b) => b.status === "completed");
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    const out = (await (await oa().files.content(done.output_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    for (const l of out) expect(l.response).toMatchObject({ status_code: 200, body: { object: "list", model: "demo-embed" } });
    const { logs, charges } = await batchBooks(created.id);
    expect(logs).toHaveLength(3);
    for (const log of logs) expect(Number(log.cost_micro_usd)).toBe(Math.ceil((Number(log.input_tokens) * 10_000) / 1_000_000)); // $0.02 → $0.01 per million
    expect(charges.reduce((a, c) => a - Number(c.delta), 0)).toBe(logs.reduce((a, l) => a + Number(l.cost_micro_usd), 0));
  });

  it("expires: lines not run within the window are never charged, the batch ends expired with the hold back", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => chatLine(i, `expiring ${i}`));
    const input = await oa().files.create({ file: await toFile(Buffer.from(jsonl(lines)), "in.jsonl"), purpose: "batch" });
    const created = await oa().batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    await server.query("update batches set expires_at = now() - interval '1 second' where id = $1", [created.id]);
    const done = await until(() => oa().batches.retrieve(created.id), (b) => b.status === "expired");
    expect(done.status).toBe("expired");
    expect(done.expired_at).not.toBeNull();
    const { logs, charges } = await batchBooks(created.id);
    expect(charges.length).toBe(done.request_counts!.completed);
    expect(logs.length).toBe(done.request_counts!.completed + done.request_counts!.failed);
    const err = (await (await oa().files.content(done.error_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(err.filter((l) => l.error?.code === "batch_expired").length).toBe(300 - logs.length);
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.ledger).toBe(books.balance);
  });

  it("refuses what a batch cannot run, naming it", async () => {
    const input = await oa().files.create({ file: await toFile(Buffer.from('{"custom_id":"a","method":"POST","url":"/v1/embeddings","body":{}}\n'), "in.jsonl"), purpose: "batch" });
    const e1 = await oa().batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" }).catch((x) => x);
    expect(e1.status).toBe(400);
    expect(e1.message).toContain("Line 1");
    const notBatch = await oa().files.create({ file: await toFile(Buffer.from("x"), "x.txt"), purpose: "user_data" });
    const e2 = await oa().batches.create({ input_file_id: notBatch.id, endpoint: "/v1/chat/completions", completion_window: "24h" }).catch((x) => x);
    expect(e2.status).toBe(400);
    expect(e2.message).toContain("purpose");
  });
});

describe("batches (Anthropic dialect)", () => {
  it("runs messages.batches with the Anthropic SDK, results JSONL, and stays in its dialect", async () => {
    const an = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const params = (text: string) => ({ model: "demo-chat", max_tokens: 40, messages: [{ role: "user" as const, content: text }] });
    const b = await an.messages.batches.create({ requests: [{ custom_id: "one", params: params("hello") }, { custom_id: "two", params: params("[fail] please") }, { custom_id: "three", params: params("bye") }] });
    expect(b).toMatchObject({ type: "message_batch", processing_status: "in_progress" });
    const ended = await until(() => an.messages.batches.retrieve(b.id), (x) => x.processing_status === "ended");
    expect(ended.request_counts).toMatchObject({ succeeded: 2, errored: 1, canceled: 0, expired: 0, processing: 0 });
    const results: { custom_id: string; result: { type: string; message?: { type: string } } }[] = [];
    for await (const r of await an.messages.batches.results(b.id)) results.push(r as never);
    expect(results.map((r) => [r.custom_id, r.result.type])).toEqual([["one", "succeeded"], ["two", "errored"], ["three", "succeeded"]]);
    expect(results[0]!.result.message).toMatchObject({ type: "message", role: "assistant" });
    const { charges } = await batchBooks(b.id);
    expect(charges).toHaveLength(2);
    // The batch is read in the dialect it was created in.
    expect(await oa().batches.retrieve(b.id).catch((e) => e.status)).toBe(404);
    const books = await idleBooks(server, email);
    expect(books.ledger).toBe(books.balance);
  });
});

describe("batches (Gemini batch mode)", () => {
  const google = (k = key, apiVersion?: string) => new GoogleGenAI({ apiKey: k, httpOptions: { baseUrl: server.url, ...(apiVersion ? { apiVersion } : {}) } });
  const req = (key: string, text: string) => ({ contents: [{ role: "user", parts: [{ text }] }], config: { maxOutputTokens: 40 }, metadata: { key } });

  it("runs ai.batches inline with @google/genai: one charge per succeeded line at the batch price, inline responses, get/list/cancel/delete", async () => {
    const g = google();
    const job = await g.batches.create({ model: "demo-chat", src: [req("a", "hello there"), req("b", "please [fail] now"), req("c", "goodbye")], config: { displayName: "nightly" } });
    expect(job.name).toMatch(/^batches\/batch_/);
    expect(job).toMatchObject({ displayName: "nightly", model: "models/demo-chat" });
    expect(["JOB_STATE_PENDING", "JOB_STATE_RUNNING"]).toContain(job.state);
    const done = await until(() => g.batches.get({ name: job.name! }), (j) => j.state === "JOB_STATE_SUCCEEDED");
    expect(done.state).toBe("JOB_STATE_SUCCEEDED");
    const out = done.dest!.inlinedResponses!;
    expect(out).toHaveLength(3);
    expect(out[0]!.response!.candidates![0]!.content!.parts![0]!.text).toBeTruthy();
    expect(out[1]!.error).toMatchObject({ code: 502, status: "UNAVAILABLE" });
    expect(out[2]!.response!.usageMetadata!.totalTokenCount).toBeGreaterThan(0);
    // The books, line by line, at demo-chat's batch price; the failure costs nothing.
    const id = job.name!.split("/")[1]!;
    const { logs, charges } = await batchBooks(id);
    expect(logs).toHaveLength(3);
    expect(charges).toHaveLength(2);
    for (const c of charges) {
      const log = logs.find((l) => l.request_id === c.request_id)!;
      expect(Number(c.delta)).toBe(-demoBatchCost(Number(log.input_tokens), Number(log.output_tokens)));
    }
    expect(logs.filter((l) => l.status === 502).map((l) => Number(l.cost_micro_usd))).toEqual([0]);
    // v1beta (older clients) reads the same batch; list pages; another organisation gets 404.
    expect((await google(key, "v1beta").batches.get({ name: job.name! })).state).toBe("JOB_STATE_SUCCEEDED");
    const listed: string[] = [];
    for await (const j of await g.batches.list({ config: { pageSize: 1 } })) listed.push(j.name!);
    expect(listed).toContain(job.name);
    expect(await google(other).batches.get({ name: job.name! }).catch((e) => e.status)).toBe(404);
    expect(await google(other).batches.delete({ name: job.name! }).catch((e) => e.status)).toBe(404);
    expect(await oa().batches.retrieve(id).catch((e) => e.status)).toBe(404); // read in its own dialect
    await g.batches.delete({ name: job.name! });
    expect(await g.batches.get({ name: job.name! }).catch((e) => e.status)).toBe(404);
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.ledger).toBe(books.balance);
  });

  it("runs a batch from a file of {key, request} lines and answers with a responses file; cancel returns the hold", async () => {
    const lines = Array.from({ length: 3 }, (_, i) => ({ key: `k${i}`, request: { contents: [{ role: "user", parts: [{ text: `line ${i}` }] }] } }));
    const input = await oa().files.create({ file: await toFile(Buffer.from(jsonl(lines)), "gemini.jsonl"), purpose: "batch" });
    const g = google();
    const job = await g.batches.create({ model: "demo-chat", src: `files/${input.id}` });
    const done = await until(() => g.batches.get({ name: job.name! }), (j) => j.state === "JOB_STATE_SUCCEEDED");
    expect(done.dest!.fileName).toMatch(/^files\/file-/);
    const text = await (await oa().files.content(done.dest!.fileName!.slice(6))).text();
    const out = text.trim().split("\n").map((l) => JSON.parse(l));
    expect(out.map((l) => l.key)).toEqual(["k0", "k1", "k2"]);
    for (const l of out) expect(l.response.candidates[0].content.parts[0].text).toBeTruthy();
    // Cancel: lines not started are never charged; the unspent hold comes back.
    const big = await g.batches.create({ model: "demo-chat", src: Array.from({ length: 300 }, (_, i) => req(`x${i}`, `cancel me ${i}`)) });
    await g.batches.cancel({ name: big.name! });
    const cancelled = await until(() => g.batches.get({ name: big.name! }), (j) => j.state === "JOB_STATE_CANCELLED");
    expect(cancelled.state).toBe("JOB_STATE_CANCELLED");
    const { charges } = await batchBooks(big.name!.split("/")[1]!);
    expect(charges.length).toBe(cancelled.dest!.inlinedResponses!.filter((r) => r.response).length);
    expect(charges.length).toBeLessThan(300);
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.ledger).toBe(books.balance);
  });
});

describe("batch tenancy", () => {
  it("answers 404 for another organisation's batch on every route", async () => {
    const input = await oa().files.create({ file: await toFile(Buffer.from(jsonl([chatLine(0, "hi")])), "in.jsonl"), purpose: "batch" });
    const mine = await oa().batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const them = oa(other);
    expect(await them.batches.retrieve(mine.id).catch((e) => e.status)).toBe(404);
    expect(await them.batches.cancel(mine.id).catch((e) => e.status)).toBe(404);
    expect((await them.batches.list()).data).toEqual([]);
    // Their own batch cannot use my file either.
    expect(await them.batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" }).catch((e) => e.status)).toBe(404);
    const an = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    const ab = await an.messages.batches.create({ requests: [{ custom_id: "x", params: { model: "demo-chat", max_tokens: 5, messages: [{ role: "user", content: "hi" }] } }] });
    const anThem = new Anthropic({ apiKey: other, baseURL: server.url, maxRetries: 0 });
    expect(await anThem.messages.batches.retrieve(ab.id).catch((e) => e.status)).toBe(404);
    expect(await anThem.messages.batches.cancel(ab.id).catch((e) => e.status)).toBe(404);
    expect(await anThem.messages.batches.results(ab.id).catch((e) => e.status)).toBe(404);
    await until(() => oa().batches.retrieve(mine.id), (b) => b.status === "completed");
    await until(() => an.messages.batches.retrieve(ab.id), (b) => b.processing_status === "ended");
  });
});

describe("batch across a worker crash", () => {
  it("500 lines with 3 % failures, polled every 100 ms by two clients, SIGKILL mid-run: exact charges and refunds, one webhook, balance = Σ ledger", async () => {
    const before = hooks.received.length;
    // 500 lines, not the 1,000: the server's restart alone takes 15–25 s on a shared machine.
    const lines = Array.from({ length: 500 }, (_, i) => chatLine(i, i % 100 < 3 ? `line ${i} [fail]` : `line ${i}`));
    const input = await oa().files.create({ file: await toFile(Buffer.from(jsonl(lines)), "in.jsonl"), purpose: "batch" });
    const created = await oa().batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h", webhook: hooks.url, webhook_secret: SECRET } as never);
    const progressed = await until(() => oa().batches.retrieve(created.id), (b) => b.request_counts!.completed >= 60, 30_000);
    expect(progressed.status).toBe("in_progress"); // still running when the worker dies
    const t0 = Date.now();
    await server.stop("SIGKILL");
    await server.restart();
    const restarted = new Date();
    let stop = false;
    const polls = [0, 1].map(async () => {
      let n = 0;
      while (!stop) {
        await oa().batches.retrieve(created.id).catch(() => undefined);
        n++;
        await sleep(100);
      }
      return n;
    });
    const done = await until(() => oa().batches.retrieve(created.id), (b) => b.status === "completed", 60_000);
    stop = true;
    console.log(`batch: ${500 - progressed.request_counts!.completed - progressed.request_counts!.failed} lines after the restart in ${Date.now() - t0} ms (start included)`);
    const pollCounts = await Promise.all(polls);
    const [rate] = await server.query<{ n: number; s: number }>(
      "select count(*)::int as n, extract(epoch from max(created_at) - min(created_at))::float as s from request_logs where batch_id = $1 and created_at > $2::timestamptz",
      [created.id, restarted.toISOString()],
    );
    console.log(`batch lines per second after the restart: ${(rate!.n / rate!.s).toFixed(0)} (${rate!.n} lines in ${rate!.s.toFixed(1)} s, BATCH_CONCURRENCY=8)`);
    expect(pollCounts.every((n) => n > 0)).toBe(true);
    expect(done.request_counts).toEqual({ total: 500, completed: 485, failed: 15 });
    const { logs, charges } = await batchBooks(created.id);
    expect(charges).toHaveLength(485);
    expect(new Set(charges.map((c) => c.request_id)).size).toBe(485);
    expect(logs).toHaveLength(500);
    expect(logs.filter((l) => l.status === 502 && Number(l.cost_micro_usd) === 0)).toHaveLength(15);
    for (const c of charges) {
      const log = logs.find((l) => l.request_id === c.request_id)!;
      expect(Number(c.delta)).toBe(-demoBatchCost(Number(log.input_tokens), Number(log.output_tokens)));
    }
    const books = await idleBooks(server, email);
    expect(books.held).toBe(0);
    expect(books.holds).toBe(0);
    expect(books.ledger).toBe(books.balance);
    await hooks.waitFor(before + 1);
    await sleep(500);
    const mine = hooks.received.slice(before).filter((h) => (h.json as { id?: string }).id === created.id);
    expect(mine).toHaveLength(1);
    const [d] = await server.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where task_id = $1", [created.id]);
    expect(d!.n).toBe(1);
  }, 90_000);
});
