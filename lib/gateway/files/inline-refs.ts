/**
 * Gateway files named by a text request (decision 0074): chat's `{"type":"file","file":{"file_id"}}`,
 * Responses' `input_file` / `input_image` with `file_id`, Messages' `document` / `image` with
 * `source: {type:"file", file_id}` (in tool results too), generateContent's `fileData.fileUri`
 * naming one of our URIs (in function responses too). Each is looked up among the caller's own
 * files (another organisation's id is a 404 naming the field, and nothing is read) and rewritten, in the
 * client's own protocol, as the inline part that protocol already takes: a data URL, a base64
 * source or `inlineData`; plain text as text. Every upstream then gets bytes it can read,
 * passthrough or converted, and the hold counts them as any inline document.
 */
import type { DB } from "../../../db/client";
import { env } from "../../env";
import type { Viewer } from "../../keys/visibility";
import type { Result } from "../../result";
import { errors, type ApiError } from "../errors";
import { fileNotFound } from "./limits";
import { getFile, readWholeFile, type FileRow } from "./store";

export type FileProtocol = "chat-completions" | "responses" | "messages" | "generate-content";

/**
 * The bytes of files one request may inline, per protocol: what its vendor takes inline in one
 * request, with base64's third where the vendor's limit is on the request's size (Anthropic
 * 32 MB; Gemini 20 MB); OpenAI takes 32 MB of file inputs per request.
 */
export const INLINE_FILE_LIMIT: Record<FileProtocol, number> = {
  "chat-completions": 32 * 1024 * 1024,
  responses: 32 * 1024 * 1024,
  messages: 24 * 1024 * 1024,
  "generate-content": 15 * 1024 * 1024,
};
/** Distinct files one request may name. */
export const FILES_PER_REQUEST = 20;

/** One reference: where the client put it and the part to replace once its file is read. */
interface Ref {
  id: string;
  /** The client's field, for errors (`messages[0].content[1].file.file_id`). */
  field: string;
  replace(f: InlineFile): void;
}

interface InlineFile {
  row: FileRow;
  mediaType: string;
  base64: string;
  /** Plain text files travel as text. */
  text: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const BY_EXTENSION: Record<string, string> = { pdf: "application/pdf", txt: "text/plain", md: "text/plain", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** The stored media type, or one from the file name when the upload sent none (OpenAI's SDKs often don't). */
function mediaTypeOf(f: FileRow): string | null {
  const m = f.mimeType?.split(";")[0]!.trim().toLowerCase();
  if (m && m !== "application/octet-stream") return m;
  return BY_EXTENSION[f.filename.split(".").pop()!.toLowerCase()] ?? null;
}

const isImage = (mt: string) => mt.startsWith("image/");
const dataUrl = (f: InlineFile) => `data:${f.mediaType};base64,${f.base64}`;
/** Cache hints stay where the client put them. */
const keep = (p: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(keys.filter((k) => p[k] !== undefined).map((k) => [k, p[k]]));

/** Chat: `messages[i].content[j]` parts of type `file` with `file.file_id`. */
function chatRefs(body: Record<string, unknown>, refs: Ref[]): void {
  arr(body.messages).forEach((m, i) => {
    if (!isObject(m) || !Array.isArray(m.content)) return;
    const content = m.content;
    content.forEach((p, j) => {
      if (!isObject(p) || p.type !== "file" || !isObject(p.file) || typeof p.file.file_id !== "string") return;
      const file = p.file;
      refs.push({
        id: file.file_id as string,
        field: `messages[${i}].content[${j}].file.file_id`,
        replace(f) {
          const extra = keep(p, "cache_control");
          if (f.text !== null) content[j] = { type: "text", text: f.text, ...extra };
          else if (isImage(f.mediaType)) content[j] = { type: "image_url", image_url: { url: dataUrl(f) }, ...extra };
          else content[j] = { type: "file", file: { file_data: dataUrl(f), filename: typeof file.filename === "string" ? file.filename : f.row.filename }, ...extra };
        },
      });
    });
  });
}

/** Responses: `input[i].content[j]` (and function outputs' parts) of type `input_file` / `input_image` with `file_id`. */
function responsesRefs(body: Record<string, unknown>, refs: Ref[]): void {
  arr(body.input).forEach((it, i) => {
    if (!isObject(it)) return;
    const key = Array.isArray(it.content) ? "content" : Array.isArray(it.output) ? "output" : null;
    if (!key) return;
    const content = it[key] as unknown[];
    content.forEach((p, j) => {
      if (!isObject(p) || (p.type !== "input_file" && p.type !== "input_image") || typeof p.file_id !== "string") return;
      refs.push({
        id: p.file_id,
        field: `input[${i}].${key}[${j}].file_id`,
        replace(f) {
          const extra = keep(p, "cache_control");
          if (f.text !== null) content[j] = { type: "input_text", text: f.text, ...extra };
          else if (isImage(f.mediaType)) content[j] = { type: "input_image", image_url: dataUrl(f), detail: typeof p.detail === "string" ? p.detail : "auto", ...extra };
          else if (p.type === "input_image") throw new NotInline(`is a ${f.mediaType} file, not an image`);
          else content[j] = { type: "input_file", file_data: dataUrl(f), filename: typeof p.filename === "string" ? p.filename : f.row.filename, ...extra };
        },
      });
    });
  });
}

/** Messages: `document` and `image` blocks with `source: {type:"file"}`, in turns and in tool results. */
function messagesRefs(body: Record<string, unknown>, refs: Ref[]): void {
  const visit = (blocks: unknown[], where: string) =>
    blocks.forEach((bl, j) => {
      if (!isObject(bl)) return;
      if (bl.type === "tool_result" && Array.isArray(bl.content)) return visit(bl.content, `${where}[${j}].content`);
      const src = bl.source;
      if ((bl.type !== "document" && bl.type !== "image") || !isObject(src) || src.type !== "file" || typeof src.file_id !== "string") return;
      refs.push({
        id: src.file_id,
        field: `${where}[${j}].source.file_id`,
        replace(f) {
          if (bl.type === "image") {
            if (!isImage(f.mediaType)) throw new NotInline(`is a ${f.mediaType} file, not an image`);
            bl.source = { type: "base64", media_type: f.mediaType, data: f.base64 };
          } else if (f.text !== null) bl.source = { type: "text", media_type: "text/plain", data: f.text };
          else if (f.mediaType === "application/pdf") bl.source = { type: "base64", media_type: f.mediaType, data: f.base64 };
          else throw new NotInline(`is a ${f.mediaType} file; a document is a PDF or plain text`);
        },
      });
    });
  arr(body.messages).forEach((m, i) => {
    if (isObject(m) && Array.isArray(m.content)) visit(m.content, `messages[${i}].content`);
  });
}

/** Our file URIs (`geminiFileUri`), under either version. */
function ourFileId(uri: string): string | null {
  const base = env().publicBaseUrl.replace(/\/+$/, "");
  if (!uri.startsWith(`${base}/`)) return null;
  const m = /^\/v1(?:beta)?\/files\/(file-[A-Za-z0-9]+)$/.exec(uri.slice(base.length));
  return m ? m[1]! : null;
}

/**
 * generateContent: `contents[i].parts[j].fileData.fileUri` naming one of our files, in turns and in
 * function responses' `parts` (a tool's screenshot); Google's own URIs pass untouched.
 */
function geminiRefs(body: Record<string, unknown>, refs: Ref[]): void {
  const visit = (parts: unknown[], where: string): void =>
    parts.forEach((p, j) => {
      if (isObject(p) && isObject(p.functionResponse) && Array.isArray(p.functionResponse.parts)) return visit(p.functionResponse.parts, `${where}[${j}].functionResponse.parts`);
      if (!isObject(p) || !isObject(p.fileData) || typeof p.fileData.fileUri !== "string") return;
      const id = ourFileId(p.fileData.fileUri);
      if (!id) return;
      refs.push({
        id,
        field: `${where}[${j}].fileData.fileUri`,
        replace(f) {
          delete p.fileData;
          p.inlineData = { mimeType: f.mediaType, data: f.base64 };
        },
      });
    });
  arr(body.contents).forEach((c, i) => {
    if (isObject(c) && Array.isArray(c.parts)) visit(c.parts, `contents[${i}].parts`);
  });
  const sys = body.systemInstruction ?? body.system_instruction;
  if (isObject(sys) && Array.isArray(sys.parts)) visit(sys.parts, "systemInstruction.parts");
}

const FINDERS: Record<FileProtocol, (body: Record<string, unknown>, refs: Ref[]) => void> = {
  "chat-completions": chatRefs,
  responses: responsesRefs,
  messages: messagesRefs,
  "generate-content": geminiRefs,
};

/** A file whose type the part cannot carry. */
class NotInline extends Error {}

export interface Inlined {
  /** A copy of the body with every reference inline (the client's object is left as it was). */
  body: Record<string, unknown>;
  /** How much larger its JSON is: the passthrough's prompt bound counts body bytes. */
  addedBytes: number;
}

/**
 * The body with the caller's files inline, null when it names none (the common case: nothing
 * copied, nothing read), or the 4xx naming the field: a file the caller cannot see (404),
 * more than FILES_PER_REQUEST files, more bytes than the protocol's INLINE_FILE_LIMIT, a type
 * the part cannot carry (400). Sizes are checked on the rows before any byte is read.
 */
export async function inlineFileRefs(db: DB, who: Viewer, protocol: FileProtocol, body: unknown): Promise<Result<Inlined | null, ApiError>> {
  if (!isObject(body)) return { ok: true, value: null };
  const probe: Ref[] = [];
  FINDERS[protocol](body, probe);
  if (!probe.length) return { ok: true, value: null };
  // The same walk over a copy, whose parts are the ones replaced.
  const copy = structuredClone(body);
  const refs: Ref[] = [];
  FINDERS[protocol](copy, refs);
  const ids = [...new Set(refs.map((r) => r.id))];
  if (ids.length > FILES_PER_REQUEST) return fail(errors.invalidRequest(`The request names ${ids.length} files; at most ${FILES_PER_REQUEST} may be used in one request.`, refs[0]!.field));
  const rows = new Map<string, FileRow>();
  for (const id of ids) {
    const f = id.startsWith("file-") ? await getFile(db, who, id) : null;
    if (f) rows.set(id, f);
  }
  for (const r of refs) {
    const f = rows.get(r.id);
    if (!f) return fail({ ...fileNotFound(r.id, r.field), message: `${r.field}: no such file: ${r.id.slice(0, 200)} (files are the organisation's own; upload it to this gateway first).` });
    if (!mediaTypeOf(f)) return fail(errors.invalidRequest(`${r.field}: the type of file ${f.id} is unknown; upload it with a content type or a .pdf, .txt, .png, .jpg, .gif or .webp name.`, r.field));
  }
  let total = 0;
  for (const f of rows.values()) total += f.bytes;
  const limit = INLINE_FILE_LIMIT[protocol];
  if (total > limit) return fail(errors.invalidRequest(`The files this request names hold ${total} bytes; one request may carry at most ${limit} bytes (${limit / 1024 / 1024} MiB) of files on this API.`, refs[0]!.field));
  const read = new Map<string, InlineFile>();
  for (const [id, row] of rows) {
    const bytes = await readWholeFile(row);
    if (!bytes) return fail({ ...fileNotFound(id, refs.find((r) => r.id === id)!.field) });
    const mediaType = mediaTypeOf(row)!;
    read.set(id, { row, mediaType, base64: bytes.toString("base64"), text: mediaType === "text/plain" ? bytes.toString("utf8") : null });
  }
  for (const r of refs) {
    try {
      r.replace(read.get(r.id)!);
    } catch (err) {
      if (err instanceof NotInline) return fail(errors.invalidRequest(`${r.field}: file ${r.id.slice(0, 200)} ${err.message}.`, r.field));
      throw err;
    }
  }
  // At most what each rewritten part adds to the JSON (its bytes, base64 or escaped text, and its fields).
  let addedBytes = 0;
  for (const r of refs) {
    const f = read.get(r.id)!;
    addedBytes += (f.text !== null ? Buffer.byteLength(JSON.stringify(f.text)) : f.base64.length) + Buffer.byteLength(f.row.filename) + 128;
  }
  return { ok: true, value: { body: copy, addedBytes } };
}

const fail = (e: ApiError): Result<never, ApiError> => ({ ok: false, error: e });

