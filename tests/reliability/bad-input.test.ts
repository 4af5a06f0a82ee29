/**
 * Hostile and broken input on every public route: malformed JSON, wrong types, missing fields,
 * huge bodies, deep nesting, invalid UTF-8, control characters, absurd numbers. Every answer
 * must be a 4xx envelope (or a 2xx for input that is odd but valid), never a 5xx, and the
 * balance must move by exactly what the successful answers say they cost. Writes a report of
 * every case and outcome to test-results/bad-input-report.md.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceUsd, createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, type TestServer } from "../support/server";

let server: TestServer;
let key: string;
let email: string;
const rows: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  ({ key, email } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  const dir = path.resolve(import.meta.dirname, "../../test-results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "bad-input-report.md"),
    ["# Bad-input report", "", "| route | case | status | code |", "|---|---|---|---|", ...rows, ""].join("\n"),
  );
  await server?.dispose();
});

const POST_ROUTES: Record<string, Record<string, unknown>> = {
  "/v1/chat/completions": { model: "demo-chat", messages: [{ role: "user", content: "hi" }] },
  "/v1/responses": { model: "demo-chat", input: "hi" },
  "/v1/messages": { model: "demo-chat", max_tokens: 16, messages: [{ role: "user", content: "hi" }] },
  "/v1/messages/count_tokens": { model: "demo-chat", messages: [{ role: "user", content: "hi" }] },
  "/v1beta/models/demo-chat:generateContent": { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  "/v1beta/models/demo-chat:streamGenerateContent?alt=sse": { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  "/v1/embeddings": { model: "demo-embed", input: "hi" },
  "/v1/images/generations": { model: "demo-image-mini", prompt: "a red square" },
  "/v1/videos": { model: "demo-video", prompt: "a calm sea", seconds: "10" },
  "/v1/audio/speech": { model: "demo-tts", voice: "alloy", input: "hi", response_format: "wav" },
  // Multipart only: every JSON body is a 400 naming `file`.
  "/v1/audio/transcriptions": { model: "demo-stt" },
};

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const bytes = (s: string) => Buffer.from(s, "utf8");

/** Cases that are broken as a whole: a 4xx whatever the route. */
const BROKEN: [string, Buffer | string][] = [
  ["empty body", ""],
  ["truncated JSON", '{"model":'],
  ["JSON array", "[]"],
  ["JSON string", '"hello"'],
  ["JSON null", "null"],
  ["JSON number", "42"],
  ["empty object (missing fields)", "{}"],
  ["every field a number", JSON.stringify({ model: 1, messages: 1, input: 1, prompt: 1, contents: 1, seconds: 1, max_tokens: "x" })],
  ["every field null", JSON.stringify({ model: null, messages: null, input: null, prompt: null, contents: null })],
  ["deep nesting (1,000 levels)", `{"model":"demo-chat","messages":${deep(1000)},"contents":${deep(1000)},"input":${deep(1000)},"prompt":${deep(1000)}}`],
  ["invalid UTF-8", Buffer.concat([bytes('{"model":"demo-chat","prompt":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), bytes('"}')])],
  ["UTF-16 body", Buffer.from('{"model":"demo-chat"}', "utf16le")],
  ["unknown model 100 KB long", JSON.stringify({ model: "m".repeat(100_000), messages: [], input: "x", prompt: "x", contents: [] })],
  ["prototype pollution keys", '{"__proto__":{"model":"demo-chat"},"constructor":{"prototype":{"x":1}}}'],
];

/** Odd values in an otherwise valid body: a 4xx or a 2xx, never a 5xx. */
const ODD: [string, Record<string, unknown>][] = [
  ["control characters", { __text: "\u0000\u0001\u0007\u001b[31m\u007f" }],
  ["lone surrogate", { __text: "\ud800 broken \udfff" }],
  ["max_tokens 1e308", { max_tokens: 1e308, max_output_tokens: 1e308, generationConfig: { maxOutputTokens: 1e308 } }],
  ["negative max_tokens", { max_tokens: -1, max_output_tokens: -1, generationConfig: { maxOutputTokens: -1 } }],
  ["fractional max_tokens", { max_tokens: 1.5, max_output_tokens: 1.5 }],
  ["temperature -1e308", { temperature: -1e308, generationConfig: { temperature: -1e308 } }],
  ["temperature as a string", { temperature: "hot", generationConfig: { temperature: "hot" } }],
  ["n = 1e9", { n: 1e9 }],
  ["seconds 1e9", { seconds: "1000000000" }],
  ["size 999999x999999", { size: "999999x999999" }],
  ["stream as a string", { stream: "yes" }],
  ["10,000 messages", { messages: Array.from({ length: 10_000 }, () => ({ role: "user", content: "x" })) }],
  ["input of 5,000 strings", { input: Array.from({ length: 5_000 }, () => "x") }],
  ["webhook to loopback", { webhook: "http://127.0.0.1:1/hook" }],
];

function withText(base: Record<string, unknown>, text: string): Record<string, unknown> {
  const b = structuredClone(base);
  if ("messages" in b) b.messages = [{ role: "user", content: text }];
  if ("input" in b) b.input = text;
  if ("prompt" in b) b.prompt = text;
  if ("contents" in b) b.contents = [{ role: "user", parts: [{ text }] }];
  return b;
}

async function post(route: string, body: Buffer | string) {
  const r = await fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body as BodyInit,
  });
  const text = await r.text();
  let code = "";
  try {
    code = JSON.parse(text)?.error?.code ?? "";
  } catch {}
  return { status: r.status, code, cost: Number(r.headers.get("x-gateway-cost-usd") ?? 0), text };
}

let spentUsd = 0;

describe("bad input on every public route", () => {
  for (const route of Object.keys(POST_ROUTES)) {
    it(`${route}: broken bodies get 4xx envelopes`, async () => {
      for (const [name, body] of BROKEN) {
        const r = await post(route, body);
        rows.push(`| POST ${route} | ${name} | ${r.status} | ${r.code} |`);
        expect(r.status, `${name}: ${r.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(r.status, name).toBeLessThan(500);
        expect(r.code, name).not.toBe("");
      }
    });

    it(`${route}: odd values never cause a 5xx`, async () => {
      for (const [name, patch] of ODD) {
        const base = POST_ROUTES[route]!;
        const body = "__text" in patch ? withText(base, String(patch.__text)) : { ...base, ...patch };
        const r = await post(route, JSON.stringify(body));
        rows.push(`| POST ${route} | ${name} | ${r.status} | ${r.code} |`);
        expect(r.status, `${name}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
        if (r.status >= 400) expect(r.code, name).not.toBe("");
        spentUsd += r.cost;
      }
    });
  }

  it("answers a body over each route's limit with 413", async () => {
    // Text routes take 32 MiB (TEXT_BODY_LIMIT_MB, agents resend whole conversations); the video
    // route takes five 5 MiB images as base64. 48 MiB is over every limit.
    const larger = Buffer.alloc(48 * 1024 * 1024, 0x20);
    for (const route of Object.keys(POST_ROUTES)) {
      const r = await post(route, larger);
      rows.push(`| POST ${route} | 48 MiB body | ${r.status} | ${r.code} |`);
      expect(r.status, route).toBe(413);
    }
  });

  it("answers odd ids and paths on the GET and DELETE routes with 4xx", async () => {
    const ids = ["task_nope", "%00", "..%2F..%2Fetc%2Fpasswd", "a".repeat(5000), "task_%E0%A4%A", "💥"];
    for (const id of ids) {
      for (const [method, p] of [
        ["GET", `/v1/videos/${id}`],
        ["GET", `/v1/videos/${id}/content`],
        ["DELETE", `/v1/videos/${id}`],
        ["GET", `/v1/tasks/${id}`],
        ["GET", `/v1/models/${id}`],
      ] as const) {
        const r = await fetch(`${server.url}${p}`, { method, headers: { authorization: `Bearer ${key}` } });
        rows.push(`| ${method} ${p.slice(0, 60)} | odd id | ${r.status} | |`);
        expect(r.status, `${method} ${p.slice(0, 80)}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${method} ${p.slice(0, 80)}`).toBeLessThan(500);
      }
    }
  });

  it("kept the books exact: balance = ledger, and only logged, successful requests were charged", async () => {
    const books = await idleBooks(server, email);
    const balanceMicro = Math.round((await balanceUsd(server, email)) * 1e6);
    expect(books.balance).toBe(balanceMicro);
    expect(books.ledger).toBe(balanceMicro);
    expect(books.held).toBe(0);
    const [acct] = await server.query<{ id: string }>("select account_id as id from users where email = $1", [email]);
    // Video holds are charged at submission and show in the ledger with their task id.
    const [charged] = await server.query<{ sum: string }>(
      "select coalesce(sum(cost_micro_usd), 0) as sum from request_logs where account_id = $1 and status >= 400",
      [acct!.id],
    );
    expect(Number(charged!.sum)).toBe(0);
    // Every non-streamed success said what it cost; streams report it in their last event.
    expect(5_000_000 - balanceMicro).toBeGreaterThanOrEqual(Math.round(spentUsd * 1e6));
  });
});
