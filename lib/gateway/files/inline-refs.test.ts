/** Files named by requests, on a real database and local media storage: each protocol's rewrite, the owner check and the bounds (decision 0074). */
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../../db/client";
import { accounts, files } from "../../../db/schema";
import { createTestDb } from "../../../db/testing";
import { resetEnvCache } from "../../env";
import { getMediaStorage } from "../../storage/get-media-storage";
import { FILES_PER_REQUEST, INLINE_FILE_LIMIT, inlineFileRefs } from "./inline-refs";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "inline-refs-unit-"));
process.env.PUBLIC_BASE_URL = "https://gw.example";
resetEnvCache();

const PDF = Buffer.from("%PDF-1.4 tiny");
const a = { accountId: "acct_a", memberScope: null } as never;
const b = { accountId: "acct_b", memberScope: null } as never;
let db: DB;
let close: () => Promise<void>;

async function file(id: string, accountId: string, bytes: Buffer | number, mimeType: string | null, filename = "doc.pdf") {
  const storageKey = `files/${id}`;
  if (typeof bytes !== "number") await getMediaStorage().put(storageKey, (async function* () { yield bytes; })(), "application/octet-stream");
  await db.insert(files).values({ id, accountId, keyId: null, userId: null, filename, purpose: "user_data", bytes: typeof bytes === "number" ? bytes : bytes.length, storageKey, mimeType });
}

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  await db.insert(accounts).values([
    { id: "acct_a", name: "a" },
    { id: "acct_b", name: "b" },
  ]);
  await file("file-pdf", "acct_a", PDF, null);
  await file("file-txt", "acct_a", Buffer.from("plain words"), "text/plain", "notes.txt");
  await file("file-huge", "acct_a", INLINE_FILE_LIMIT["generate-content"] + 1, "application/pdf"); // a row without bytes: never read
});
afterAll(async () => close?.());

const data = `data:application/pdf;base64,${PDF.toString("base64")}`;

describe("inlineFileRefs", () => {
  it("leaves a body that names no file alone (null, nothing copied)", async () => {
    expect(await inlineFileRefs(db, a, "chat-completions", { messages: [{ role: "user", content: "hi" }] })).toEqual({ ok: true, value: null });
  });

  it("rewrites each protocol's reference inline, on a copy, and counts the bytes it added", async () => {
    const chat = { messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file-pdf" } }, { type: "file", file: { file_id: "file-txt" } }] }] };
    const r = await inlineFileRefs(db, a, "chat-completions", chat);
    expect(r.ok && r.value?.body.messages).toEqual([{ role: "user", content: [{ type: "file", file: { file_data: data, filename: "doc.pdf" } }, { type: "text", text: "plain words" }] }]);
    expect(r.ok && r.value!.addedBytes).toBeGreaterThan(PDF.toString("base64").length);
    expect(chat.messages[0]!.content[0]).toEqual({ type: "file", file: { file_id: "file-pdf" } });
    const msgs = await inlineFileRefs(db, a, "messages", { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "document", source: { type: "file", file_id: "file-pdf" } }] }] }] });
    expect(msgs.ok && (msgs.value?.body as any).messages[0].content[0].content[0].source).toEqual({ type: "base64", media_type: "application/pdf", data: PDF.toString("base64") });
    const gem = await inlineFileRefs(db, a, "generate-content", { contents: [{ parts: [{ fileData: { fileUri: "https://gw.example/v1beta/files/file-pdf" } }, { fileData: { fileUri: "https://generativelanguage.googleapis.com/v1beta/files/file-pdf" } }] }] });
    expect(gem.ok && (gem.value?.body as any).contents[0].parts).toEqual([{ inlineData: { mimeType: "application/pdf", data: PDF.toString("base64") } }, { fileData: { fileUri: "https://generativelanguage.googleapis.com/v1beta/files/file-pdf" } }]);
  });

  it("generateContent: a fileData inside a function response's parts (a tool's screenshot or PDF) is inlined there too", async () => {
    const fr = { name: "read", response: { ok: true }, parts: [{ fileData: { fileUri: "https://gw.example/v1beta/files/file-pdf", mimeType: "application/pdf" } }] };
    const gem = await inlineFileRefs(db, a, "generate-content", { contents: [{ role: "user", parts: [{ functionResponse: fr }] }] });
    expect(gem.ok && (gem.value?.body as any).contents[0].parts[0].functionResponse).toEqual({ ...fr, parts: [{ inlineData: { mimeType: "application/pdf", data: PDF.toString("base64") } }] });
    const other = await inlineFileRefs(db, b, "generate-content", { contents: [{ parts: [{ text: "x" }, { functionResponse: { name: "r", response: {}, parts: [{ fileData: { fileUri: "https://gw.example/v1beta/files/file-pdf" } }] } }] }] });
    expect(!other.ok && other.error).toMatchObject({ status: 404, param: "contents[0].parts[1].functionResponse.parts[0].fileData.fileUri" });
  });

  it("refuses another organisation's file with a 404 naming the field, and an image reference to a PDF with a 400", async () => {
    const r = await inlineFileRefs(db, b, "responses", { input: [{ role: "user", content: [{ type: "input_file", file_id: "file-pdf" }] }] });
    expect(!r.ok && r.error).toMatchObject({ status: 404, param: "input[0].content[0].file_id" });
    const img = await inlineFileRefs(db, a, "messages", { messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "file-pdf" } }] }] });
    expect(!img.ok && img.error).toMatchObject({ status: 400, param: "messages[0].content[0].source.file_id" });
  });

  it("checks the protocol's byte bound and the file count on the rows, before reading any byte", async () => {
    const big = await inlineFileRefs(db, a, "generate-content", { contents: [{ parts: [{ fileData: { fileUri: "https://gw.example/v1beta/files/file-huge" } }] }] });
    expect(!big.ok && big.error).toMatchObject({ status: 400, param: "contents[0].parts[0].fileData.fileUri" });
    expect(!big.ok && big.error.message).toContain(`${INLINE_FILE_LIMIT["generate-content"]} bytes`);
    const content = Array.from({ length: FILES_PER_REQUEST + 1 }, (_, i) => ({ type: "file", file: { file_id: `file-${i}` } }));
    const many = await inlineFileRefs(db, a, "chat-completions", { messages: [{ role: "user", content }] });
    expect(!many.ok && many.error.status).toBe(400);
  });
});
