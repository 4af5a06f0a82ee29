/**
 * Issue 38, files part: Google's Files API with @google/genai (upload, get, list, delete, the
 * resumable protocol in chunks, the 413 naming the limit, another organisation's 404), gateway
 * files named by chat, Responses, Messages and generateContent requests reaching fake upstreams
 * of the same and of another kind with the content (billed as usual), another organisation's
 * ids refused naming the field before any upstream call, and /v1/files errors (a bad key's too)
 * in each caller's own shape.
 */
import Anthropic, { toFile as anthropicFile } from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./fakes/anthropic-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "./fakes/gemini-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses } from "./fakes/openai-responses-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let fakes: { openai: FakeTextUpstream; anthropic: FakeTextUpstream; gemini: FakeTextUpstream; responses: FakeTextUpstream };
let key: string;
let other: string;

/** A small PDF (its bytes only matter as bytes) and a 1×1 PNG. */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Page >> endobj\ntrailer << >>\n%%EOF\n");
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini(), responses: await startFakeOpenAIResponses() };
  const price = { inputPerMTok: 1, outputPerMTok: 2 };
  server = await startTestServer({
    env: { DEFAULT_KEY_RPM: "100000", FILES_MAX_MB: "1" },
    config: {
      upstreams: [
        { id: "oa", protocol: "openai", baseUrl: fakes.openai.baseUrl, apiKey: OPENAI_FAKE_KEY },
        { id: "an", protocol: "anthropic", baseUrl: fakes.anthropic.baseUrl, apiKey: ANTHROPIC_FAKE_KEY },
        { id: "ge", protocol: "gemini", baseUrl: fakes.gemini.baseUrl, apiKey: GEMINI_FAKE_KEY },
        { id: "rs", protocol: "openai-responses", baseUrl: fakes.responses.baseUrl, apiKey: OPENAI_RESPONSES_FAKE_KEY },
      ],
      models: [
        { id: "m-openai", kind: "text", upstream: "oa", upstreamModel: "gpt-fake", price },
        { id: "m-anthropic", kind: "text", upstream: "an", upstreamModel: "claude-fake", price },
        { id: "m-gemini", kind: "text", upstream: "ge", upstreamModel: "gemini-fake", price },
        // Gemini 3 takes images inside a function response; earlier models refuse them.
        { id: "m-gemini3", kind: "text", upstream: "ge", upstreamModel: "gemini-3-fake", price },
        { id: "m-responses", kind: "text", upstream: "rs", upstreamModel: "gpt-resp-fake", price },
      ],
    },
  });
  ({ key } = await createAccount(server, { usd: 5 }));
  ({ key: other } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

const google = (k = key, apiVersion?: string) => new GoogleGenAI({ apiKey: k, httpOptions: { baseUrl: server.url, ...(apiVersion ? { apiVersion } : {}) } });
const openai = (k = key) => new OpenAI({ apiKey: k, baseURL: `${server.url}/v1`, maxRetries: 0 });
const anthropic = (k = key) => new Anthropic({ apiKey: k, baseURL: server.url, maxRetries: 0 });
const betas: ["files-api-2025-04-14"] = ["files-api-2025-04-14"];
const post = (path: string, body: unknown, headers: Record<string, string>) => fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const bearer = (k = key) => ({ authorization: `Bearer ${k}` });
const b64 = (b: Buffer) => b.toString("base64");
const cost = (r: Response) => Number(r.headers.get("x-gateway-cost-usd"));

describe("Google's Files API", () => {
  it("uploads, gets, lists and deletes with @google/genai on v1 and v1beta; another organisation sees nothing", async () => {
    for (const v of [undefined, "v1beta"]) {
      const ai = google(key, v);
      const f = await ai.files.upload({ file: new Blob([PDF], { type: "application/pdf" }), config: { displayName: "paper.pdf" } });
      expect(f).toMatchObject({ mimeType: "application/pdf", sizeBytes: String(PDF.length), state: "ACTIVE", displayName: "paper.pdf" });
      expect(f.name).toMatch(/^files\/file-/);
      expect(f.uri).toBe(`${server.url.replace("127.0.0.1", "localhost")}/v1beta/files/${f.name!.slice(6)}`);
      expect(Date.parse(f.expirationTime!) - Date.parse(f.createTime!)).toBe(48 * 3_600_000);
      const sha = (await import("node:crypto")).createHash("sha256").update(PDF).digest("hex");
      expect(Buffer.from(f.sha256Hash!, "base64").toString()).toBe(sha);
      expect(await ai.files.get({ name: f.name! })).toMatchObject({ name: f.name, sizeBytes: String(PDF.length) });
      const listed: string[] = [];
      for await (const x of await ai.files.list({ config: { pageSize: 1 } })) listed.push(x.name!);
      expect(listed).toContain(f.name);
      // Another organisation: no read, no delete, not listed.
      const them = google(other, v);
      expect(await them.files.get({ name: f.name! }).catch((e) => e.status)).toBe(404);
      expect(await them.files.delete({ name: f.name! }).catch((e) => e.status)).toBe(404);
      const theirs: string[] = [];
      for await (const x of await them.files.list()) theirs.push(x.name!);
      expect(theirs).not.toContain(f.name);
      await ai.files.delete({ name: f.name! });
      expect(await ai.files.get({ name: f.name! }).catch((e) => e.status)).toBe(404);
    }
  });

  it("takes a resumable upload in chunks, refuses a wrong offset, and names the limit in a 413", async () => {
    const g = { "x-goog-api-key": key };
    const startHeaders = (size: number) => ({ ...g, "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start", "x-goog-upload-header-content-length": String(size), "x-goog-upload-header-content-type": "text/plain" });
    const text = Buffer.from("chunked ".repeat(100));
    const s = await post("/upload/v1beta/files", { file: { display_name: "notes.txt" } }, startHeaders(text.length));
    expect(s.status).toBe(200);
    const url = s.headers.get("x-goog-upload-url")!;
    expect(url).toContain("/upload/v1beta/files?upload_id=");
    const local = `${server.url}${new URL(url).pathname}${new URL(url).search}`;
    const chunk = (cmd: string, offset: number, bytes: Buffer, k = key) => fetch(local, { method: "POST", headers: { "x-goog-api-key": k, "x-goog-upload-command": cmd, "x-goog-upload-offset": String(offset) }, body: new Uint8Array(bytes) });
    const first = await chunk("upload", 0, text.subarray(0, 300));
    expect(first.headers.get("x-goog-upload-status")).toBe("active");
    // Another organisation cannot write into it.
    expect((await chunk("upload", 300, text.subarray(300, 400), other)).status).toBe(404);
    const wrong = await chunk("upload", 100, text.subarray(300));
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    const last = await chunk("upload, finalize", 300, text.subarray(300));
    expect(last.headers.get("x-goog-upload-status")).toBe("final");
    const { file } = await last.json();
    expect(file).toMatchObject({ displayName: "notes.txt", mimeType: "text/plain", sizeBytes: String(text.length) });
    const content = await fetch(`${server.url}/v1/files/${file.name.slice(6)}/content`, { headers: bearer() });
    expect(Buffer.from(await content.arrayBuffer()).equals(text)).toBe(true);

    // FILES_MAX_MB is 1: a 2 MB upload is refused at its start, naming the limit, in Google's shape.
    const big = await post("/upload/v1beta/files", {}, startHeaders(2 * 1024 * 1024));
    expect(big.status).toBe(413);
    const body = await big.json();
    expect(body.error.code).toBe(413);
    expect(body.error.message).toContain("1 MB");
    const sdk = await google()
      .files.upload({ file: new Blob([Buffer.alloc(1024 * 1024 + 1)], { type: "text/plain" }) })
      .catch((e) => e);
    expect(sdk.status).toBe(413);
  });

  it("answers in Google's error shape, a bad key's 401 too, on v1beta and on the shared /v1/files and /v1/batches", async () => {
    const missing = await fetch(`${server.url}/v1beta/files/file-nope`, { headers: { "x-goog-api-key": key } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    for (const path of ["/v1beta/files", "/v1/files", "/v1/batches", "/v1/batches/batch_nope"]) {
      const bad = await fetch(`${server.url}${path}`, { headers: { "x-goog-api-key": "sk-wrong" } });
      expect(bad.status).toBe(401);
      expect((await bad.json()).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
      const q = await fetch(`${server.url}${path}?key=sk-wrong`);
      expect((await q.json()).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    }
  });
});

describe("/v1/files errors in the caller's shape", () => {
  it("Anthropic callers get Anthropic's shape, OpenAI callers OpenAI's, bad keys included", async () => {
    const an = await fetch(`${server.url}/v1/files`, { headers: { "x-api-key": "sk-wrong", "anthropic-version": "2023-06-01", "anthropic-beta": betas[0] } });
    expect(an.status).toBe(401);
    const ab = await an.json();
    expect(ab).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    // x-api-key alone is an Anthropic caller too.
    expect(await (await fetch(`${server.url}/v1/files/file-x`, { headers: { "x-api-key": "sk-wrong" } })).json()).toMatchObject({ type: "error" });
    expect(await anthropic("sk-wrong").beta.files.list({ betas }).catch((e) => [e.status, e.error?.type, e.error?.error?.type])).toEqual([401, "error", "authentication_error"]);
    const notFound = await fetch(`${server.url}/v1/files/file-nope`, { headers: { "x-api-key": key, "anthropic-version": "2023-06-01" } });
    expect(await notFound.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });

    const oa = await fetch(`${server.url}/v1/files`, { headers: bearer("sk-wrong") });
    expect(oa.status).toBe(401);
    const ob = await oa.json();
    expect(ob.type).toBeUndefined();
    expect(ob.error).toMatchObject({ type: "authentication_error", code: "invalid_token" });
    expect(await openai("sk-wrong").files.list().catch((e) => [e.status, e.code])).toEqual([401, "invalid_token"]);
  });
});

describe("gateway files named by text requests", () => {
  let pdfId: string;
  let pngId: string;
  let geminiUri: string;
  beforeAll(async () => {
    pdfId = (await openai().files.create({ file: await toFile(PDF, "paper.pdf"), purpose: "user_data" })).id;
    pngId = (await anthropic().beta.files.upload({ file: await anthropicFile(PNG, "dot.png", { type: "image/png" }), betas })).id;
    geminiUri = (await google().files.upload({ file: new Blob([PDF], { type: "application/pdf" }) })).uri!;
  });

  const chat = (model: string, fileId: string, k = key) =>
    post("/v1/chat/completions", { model, messages: [{ role: "user", content: [{ type: "text", text: "Summarise" }, { type: "file", file: { file_id: fileId } }] }] }, bearer(k));

  it("chat completions: the PDF reaches OpenAI inline (passthrough) and Anthropic as a document (converted), billed", async () => {
    const r = await chat("m-openai", pdfId);
    expect(r.status).toBe(200);
    expect(cost(r)).toBeGreaterThan(0);
    const sent = fakes.openai.generationRequests()[0]!.body.messages[0].content[1];
    expect(sent).toEqual({ type: "file", file: { file_data: `data:application/pdf;base64,${b64(PDF)}`, filename: "paper.pdf" } });
    const c = await chat("m-anthropic", pdfId);
    expect(c.status).toBe(200);
    expect(cost(c)).toBeGreaterThan(0);
    const doc = fakes.anthropic.generationRequests()[0]!.body.messages[0].content.find((b: { type: string }) => b.type === "document");
    expect(doc.source).toEqual({ type: "base64", media_type: "application/pdf", data: b64(PDF) });
    // An image file becomes an image part.
    const img = await chat("m-gemini", pngId);
    expect(img.status).toBe(200);
    const parts = fakes.gemini.generationRequests()[0]!.body.contents[0].parts;
    expect(parts).toContainEqual({ inlineData: { mimeType: "image/png", data: b64(PNG) } });
  });

  it("Responses: input_file and input_image by file_id reach the Responses upstream and Gemini with the bytes", async () => {
    const input = [{ role: "user", content: [{ type: "input_text", text: "Read" }, { type: "input_file", file_id: pdfId }, { type: "input_image", file_id: pngId }] }];
    const r = await post("/v1/responses", { model: "m-responses", input, store: false }, bearer());
    expect(r.status).toBe(200);
    expect(cost(r)).toBeGreaterThan(0);
    const content = fakes.responses.generationRequests()[0]!.body.input[0].content;
    expect(content[1]).toEqual({ type: "input_file", file_data: `data:application/pdf;base64,${b64(PDF)}`, filename: "paper.pdf" });
    expect(content[2]).toEqual({ type: "input_image", image_url: `data:image/png;base64,${b64(PNG)}`, detail: "auto" });
    const g = await post("/v1/responses", { model: "m-gemini", input, store: false }, bearer());
    expect(g.status).toBe(200);
    const parts = fakes.gemini.generationRequests()[0]!.body.contents[0].parts;
    expect(parts).toContainEqual({ inlineData: { mimeType: "application/pdf", data: b64(PDF) } });
  });

  it("Messages: document and image blocks with file sources reach Anthropic (passthrough) and OpenAI (converted)", async () => {
    const messages = [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: pdfId } }, { type: "image", source: { type: "file", file_id: pngId } }, { type: "text", text: "What is this?" }] }];
    const body = { model: "m-anthropic", max_tokens: 50, messages };
    const headers = { "x-api-key": key, "anthropic-version": "2023-06-01", "anthropic-beta": betas[0] };
    const r = await post("/v1/messages", body, headers);
    expect(r.status).toBe(200);
    expect(cost(r)).toBeGreaterThan(0);
    const sent = fakes.anthropic.generationRequests()[0]!.body.messages[0].content;
    expect(sent[0].source).toEqual({ type: "base64", media_type: "application/pdf", data: b64(PDF) });
    expect(sent[1].source).toEqual({ type: "base64", media_type: "image/png", data: b64(PNG) });
    // count_tokens counts the documents named by id too.
    const counted = async (m: unknown) => (await (await post("/v1/messages/count_tokens", { model: "m-anthropic", messages: m }, headers)).json()).input_tokens;
    expect(await counted(messages)).toBeGreaterThan(await counted([{ role: "user", content: "What is this?" }]));
    const o = await post("/v1/messages", { ...body, model: "m-openai" }, headers);
    expect(o.status).toBe(200);
    const parts = fakes.openai.generationRequests()[0]!.body.messages[0].content;
    expect(parts).toContainEqual(expect.objectContaining({ type: "file", file: expect.objectContaining({ file_data: `data:application/pdf;base64,${b64(PDF)}` }) }));
    expect(parts).toContainEqual(expect.objectContaining({ type: "image_url", image_url: expect.objectContaining({ url: `data:image/png;base64,${b64(PNG)}` }) }));
  });

  it("generateContent: fileData naming our URI reaches Gemini inline (passthrough) and Anthropic as a document; Google's own URIs are left alone", async () => {
    const res = await google().models.generateContent({ model: "m-gemini", contents: [{ role: "user", parts: [{ text: "Read" }, { fileData: { fileUri: geminiUri, mimeType: "application/pdf" } }] }] });
    expect(res.text).toBe("Hello from the fake upstream!");
    expect(fakes.gemini.generationRequests()[0]!.body.contents[0].parts[1]).toEqual({ inlineData: { mimeType: "application/pdf", data: b64(PDF) } });
    const r = await post(`/v1beta/models/m-anthropic:generateContent`, { contents: [{ role: "user", parts: [{ text: "Read" }, { fileData: { fileUri: geminiUri, mimeType: "application/pdf" } }] }] }, { "x-goog-api-key": key });
    expect(r.status).toBe(200);
    expect(cost(r)).toBeGreaterThan(0);
    const doc = fakes.anthropic.generationRequests()[0]!.body.messages[0].content.find((b: { type: string }) => b.type === "document");
    expect(doc.source).toEqual({ type: "base64", media_type: "application/pdf", data: b64(PDF) });
    const googles = "https://generativelanguage.googleapis.com/v1beta/files/abc-123";
    await post(`/v1beta/models/m-gemini:generateContent`, { contents: [{ role: "user", parts: [{ text: "x" }, { fileData: { fileUri: googles, mimeType: "application/pdf" } }] }] }, { "x-goog-api-key": key });
    expect(fakes.gemini.generationRequests().at(-1)!.body.contents[0].parts[1]).toEqual({ fileData: { fileUri: googles, mimeType: "application/pdf" } });
  });

  it("generateContent: a screenshot named by fileData inside a function response reaches Gemini inline there, and Anthropic as the tool result's image", async () => {
    const pngUri = geminiUri.replace(/file-[A-Za-z0-9]+$/, pngId);
    const contents = [
      { role: "user", parts: [{ text: "Take a screenshot" }] },
      { role: "model", parts: [{ functionCall: { name: "screenshot", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name: "screenshot", response: { ok: true }, parts: [{ fileData: { fileUri: pngUri, mimeType: "image/png" } }] } }] },
    ];
    const res = await google().models.generateContent({ model: "m-gemini3", contents });
    expect(res.text).toBe("Hello from the fake upstream!");
    expect(fakes.gemini.generationRequests()[0]!.body.contents[2].parts[0].functionResponse.parts).toEqual([{ inlineData: { mimeType: "image/png", data: b64(PNG) } }]);
    const r = await post(`/v1beta/models/m-anthropic:generateContent`, { contents }, { "x-goog-api-key": key });
    expect(r.status).toBe(200);
    const result = fakes.anthropic.generationRequests()[0]!.body.messages.at(-1).content.find((b: { type: string }) => b.type === "tool_result");
    expect(result.content).toContainEqual(expect.objectContaining({ type: "image", source: { type: "base64", media_type: "image/png", data: b64(PNG) } }));
  });

  it("refuses another organisation's ids naming the field, in each protocol's shape, before any upstream call", async () => {
    const c = await chat("m-openai", pdfId, other);
    expect(c.status).toBe(404);
    expect((await c.json()).error).toMatchObject({ param: "messages[0].content[1].file.file_id" });
    const m = await post("/v1/messages", { model: "m-anthropic", max_tokens: 10, messages: [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: pdfId } }] }] }, { "x-api-key": other, "anthropic-version": "2023-06-01" });
    expect(m.status).toBe(404);
    const mb = await m.json();
    expect(mb).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    expect(mb.error.message).toContain("messages[0].content[0].source.file_id");
    const r = await post("/v1/responses", { model: "m-responses", input: [{ role: "user", content: [{ type: "input_file", file_id: pdfId }] }] }, bearer(other));
    expect(r.status).toBe(404);
    expect((await r.json()).error.param).toBe("input[0].content[0].file_id");
    const g = await post(`/v1beta/models/m-gemini:generateContent`, { contents: [{ role: "user", parts: [{ fileData: { fileUri: geminiUri } }] }] }, { "x-goog-api-key": other });
    expect(g.status).toBe(404);
    expect((await g.json()).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    // More than 20 files, or a file whose type is unknown: 400s naming the field.
    const many = await post("/v1/chat/completions", { model: "m-openai", messages: [{ role: "user", content: Array.from({ length: 21 }, (_, i) => ({ type: "file", file: { file_id: `file-${i}` } })) }] }, bearer());
    expect(many.status).toBe(400);
    expect((await many.json()).error.message).toContain("at most 20");
    const bin = (await openai().files.create({ file: await toFile(Buffer.from([1, 2, 3]), "blob.bin"), purpose: "user_data" })).id;
    const unknown = await chat("m-openai", bin);
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatchObject({ param: "messages[0].content[1].file.file_id" });
    for (const f of Object.values(fakes)) expect(f.generationRequests()).toHaveLength(0);
  });
});
