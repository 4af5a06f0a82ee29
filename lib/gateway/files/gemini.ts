/**
 * Google's Files API over the gateway's files store, as `@google/genai` calls it
 * (`ai.files.upload/get/list/delete`): the resumable upload at `POST /upload/{v1beta,v1}/files`
 * (start, then `upload` chunks and the `upload, finalize` one at increasing offsets), and
 * `GET|DELETE /{v1beta,v1}/files/{id}`, `GET /{v1beta,v1}/files`. A file is `files/<our id>`,
 * its `uri` is ours (a request's `fileData.fileUri` naming it is inlined: inline-refs.ts), it
 * lives 48 hours as Google's do, and it is the organisation's like every other file.
 * `/v1/files` is also OpenAI's and Anthropic's: routes.ts hands Google callers here.
 */
import { createHash } from "node:crypto";
import { and, eq, gt, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { fileUploads, files } from "../../../db/schema";
import { env } from "../../env";
import { randomBase62 } from "../../ids";
import { visibleTo } from "../../keys/visibility";
import { getMediaStorage } from "../../storage/get-media-storage";
import { errors, type ApiError } from "../errors";
import { header, json, type GatewayResponse } from "../http";
import type { RouteContext, RouteDef } from "../types";
import { counted, fileNotFound, maxBytes, TooLarge, tooLarge } from "./limits";
import { deleteFile, getFile, listFiles, newFileId, storageKeyOf, type FileRow } from "./store";

/** Google keeps an uploaded file 48 hours. */
const GEMINI_FILE_MS = 48 * 3_600_000;
/** An upload not finished within a day is swept with its chunks (store.ts). */
const UPLOAD_SESSION_MS = 24 * 3_600_000;
/** Google's `pageSize`: 10 by default, at most 100. */
const PAGE_DEFAULT = 10;
const PAGE_MAX = 100;

const GOOGLE = { transports: { queryKey: true, googApiKey: true }, errorStyle: "gemini" as const };

/** `files/file-…` or `file-…` → the file id. */
const idOf = (name: string) => name.replace(/^files\//, "");

/** Our own URI of a file, as Google's `uri` (generateContent's `fileData.fileUri` takes it back). */
export const geminiFileUri = (id: string) => `${env().publicBaseUrl.replace(/\/+$/, "")}/v1beta/files/${id}`;

/** Google's File resource; `sha256Hash` (a `bytes` field: base64 in JSON) carries the hex digest's text. */
export function renderGeminiFile(f: FileRow): Record<string, unknown> {
  const created = f.createdAt.toISOString();
  return {
    name: `files/${f.id}`,
    displayName: f.filename,
    mimeType: f.mimeType ?? "application/octet-stream",
    sizeBytes: String(f.bytes),
    createTime: created,
    updateTime: created,
    ...(f.expiresAt ? { expirationTime: f.expiresAt.toISOString() } : {}),
    ...(f.sha256 ? { sha256Hash: Buffer.from(f.sha256).toString("base64") } : {}),
    uri: geminiFileUri(f.id),
    state: "ACTIVE",
    source: "UPLOADED",
  };
}

const notFound = (name: string, param = "name"): ApiError => ({ ...fileNotFound(name, param), message: `File ${name.slice(0, 200)} was not found.` });

export async function getGemini(ctx: RouteContext): Promise<GatewayResponse> {
  const f = await getFile(await getDb(), ctx.principal, idOf(ctx.params.id!));
  return f ? json(200, renderGeminiFile(f)) : ctx.error(notFound(`files/${idOf(ctx.params.id!)}`));
}

export async function deleteGemini(ctx: RouteContext): Promise<GatewayResponse> {
  const ok = await deleteFile(await getDb(), ctx.principal, idOf(ctx.params.id!));
  return ok ? json(200, {}) : ctx.error(notFound(`files/${idOf(ctx.params.id!)}`));
}

/** Newest first; the page token is the last file's id. Empty lists are `{}`, as proto3 JSON leaves them out. */
export async function listGemini(ctx: RouteContext): Promise<GatewayResponse> {
  const q = ctx.req.url.searchParams;
  const size = q.get("pageSize") === null ? PAGE_DEFAULT : Number(q.get("pageSize"));
  if (!Number.isInteger(size) || size < 0) return ctx.error(errors.invalidRequest("`pageSize` must be a whole number.", "pageSize"));
  const limit = Math.min(size || PAGE_DEFAULT, PAGE_MAX);
  const { rows, hasMore } = await listFiles(await getDb(), ctx.principal, { limit, order: "desc", after: q.get("pageToken") || undefined });
  const out: Record<string, unknown> = {};
  if (rows.length) out.files = rows.map(renderGeminiFile);
  if (hasMore) out.nextPageToken = rows.at(-1)!.id;
  return json(200, out);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `POST /upload/{version}/files`: a session's start (no `upload_id`), else one of its commands. */
async function upload(ctx: RouteContext): Promise<GatewayResponse> {
  const uploadId = ctx.req.url.searchParams.get("upload_id");
  return uploadId === null ? start(ctx) : command(ctx, uploadId);
}

/** The start: metadata in, the session's URL out (`X-Goog-Upload-URL`); no bytes yet. */
async function start(ctx: RouteContext): Promise<GatewayResponse> {
  const protocol = header(ctx.req, "x-goog-upload-protocol");
  if (protocol !== "resumable")
    return ctx.error(errors.invalidRequest("Only the resumable upload protocol is served: send `X-Goog-Upload-Protocol: resumable` and `X-Goog-Upload-Command: start`.", "X-Goog-Upload-Protocol"));
  if (header(ctx.req, "x-goog-upload-command")?.trim() !== "start") return ctx.error(errors.invalidRequest("A new upload starts with `X-Goog-Upload-Command: start`.", "X-Goog-Upload-Command"));
  const body = await ctx.readJson();
  if (!body.ok && body.error.status !== 400) return ctx.error(body.error);
  // An empty body is a file without metadata.
  const meta = body.ok && isObject(body.value) && isObject(body.value.file) ? body.value.file : {};
  const displayName = meta.displayName ?? meta.display_name;
  if (displayName !== undefined && (typeof displayName !== "string" || displayName.length > 512)) return ctx.error(errors.invalidRequest("`file.displayName` must be a string of at most 512 characters.", "file.displayName"));
  const mimeType = header(ctx.req, "x-goog-upload-header-content-type") ?? (typeof meta.mimeType === "string" ? meta.mimeType : undefined);
  if (!mimeType || mimeType.length > 255) return ctx.error(errors.invalidRequest("The file's media type is required: `X-Goog-Upload-Header-Content-Type` (or `file.mimeType`).", "X-Goog-Upload-Header-Content-Type"));
  const sizeHeader = header(ctx.req, "x-goog-upload-header-content-length");
  const declared = sizeHeader === undefined ? null : Number(sizeHeader);
  if (declared !== null && (!Number.isInteger(declared) || declared < 0)) return ctx.error(errors.invalidRequest("`X-Goog-Upload-Header-Content-Length` must be a whole number of bytes.", "X-Goog-Upload-Header-Content-Length"));
  if (declared !== null && declared > maxBytes()) return ctx.error({ ...tooLarge(), param: "X-Goog-Upload-Header-Content-Length" });
  const fileName = header(ctx.req, "x-goog-upload-file-name");
  const p = ctx.principal;
  const id = `upl-${randomBase62(24)}`;
  await (await getDb()).insert(fileUploads).values({
    id,
    accountId: p.accountId,
    keyId: p.keyId,
    userId: p.userId,
    fileId: newFileId(),
    displayName: ((displayName as string | undefined) ?? fileName ?? null)?.slice(0, 512) ?? null,
    mimeType,
    declaredBytes: declared,
    expiresAt: new Date(Date.now() + UPLOAD_SESSION_MS),
  });
  const url = `${env().publicBaseUrl.replace(/\/+$/, "")}${ctx.req.url.pathname}?upload_id=${id}&upload_protocol=resumable`;
  return { status: 200, headers: { "x-goog-upload-url": url, "x-goog-upload-control-url": url, "x-goog-upload-status": "active", "x-goog-upload-chunk-granularity": "262144", "content-length": "0" }, body: null };
}

const status = (s: "active" | "final" | "cancelled", extra: Record<string, string> = {}): GatewayResponse => ({ status: 200, headers: { "x-goog-upload-status": s, "content-length": "0", ...extra }, body: null });

/** `upload` (a chunk at `X-Goog-Upload-Offset`), `upload, finalize` (the last one), `query` and `cancel`. */
async function command(ctx: RouteContext, uploadId: string): Promise<GatewayResponse> {
  const db = await getDb();
  const [session] = await db
    .select()
    .from(fileUploads)
    .where(and(eq(fileUploads.id, uploadId), visibleTo(ctx.principal, fileUploads), gt(fileUploads.expiresAt, new Date())));
  if (!session) return ctx.error({ ...errors.notFound(`Upload session ${uploadId.slice(0, 60)} was not found (unknown, finished or expired).`), param: "upload_id" });
  const commands = (header(ctx.req, "x-goog-upload-command") ?? "").split(",").map((c) => c.trim());
  const storage = getMediaStorage();
  if (commands.includes("query")) return status("active", { "x-goog-upload-size-received": String(session.receivedBytes) });
  if (commands.includes("cancel")) {
    await db.delete(fileUploads).where(eq(fileUploads.id, session.id));
    for (const k of session.partKeys) await storage.delete(k).catch(() => undefined);
    return status("cancelled");
  }
  if (!commands.includes("upload")) return ctx.error(errors.invalidRequest("`X-Goog-Upload-Command` must be `upload`, `upload, finalize`, `query` or `cancel`.", "X-Goog-Upload-Command"));
  const offset = Number(header(ctx.req, "x-goog-upload-offset") ?? "0");
  if (offset !== session.receivedBytes)
    return ctx.error(errors.invalidRequest(`\`X-Goog-Upload-Offset\` is ${offset}, but ${session.receivedBytes} bytes of this upload were received.`, "X-Goog-Upload-Offset"));
  // Neither past the declared size nor past FILES_MAX_MB, counted as the bytes arrive.
  const room = Math.min(maxBytes(), session.declaredBytes ?? Infinity) - offset;
  const tooMuch = (): ApiError => (session.declaredBytes !== null && session.declaredBytes < maxBytes() ? errors.invalidRequest(`The upload is larger than the ${session.declaredBytes} bytes its start declared.`, "X-Goog-Upload-Header-Content-Length") : tooLarge());
  const chunk: AsyncIterable<Buffer> = (ctx.req.body ?? []) as AsyncIterable<Buffer>;
  const seen = { bytes: 0 };

  if (!commands.includes("finalize")) {
    // A middle chunk waits in storage under its own key; the row lists it only if its offset still holds.
    const key = `uploads/${session.id}/${offset}-${randomBase62(8)}`;
    try {
      await storage.put(key, counted(chunk, room, seen), "application/octet-stream");
    } catch (err) {
      await storage.delete(key).catch(() => undefined);
      if (err instanceof TooLarge) return ctx.error(tooMuch());
      throw err;
    }
    const [moved] = await db
      .update(fileUploads)
      .set({ receivedBytes: sql`${fileUploads.receivedBytes} + ${seen.bytes}`, partKeys: sql`array_append(${fileUploads.partKeys}, ${key})` })
      .where(and(eq(fileUploads.id, session.id), eq(fileUploads.receivedBytes, offset)))
      .returning();
    if (!moved) {
      await storage.delete(key).catch(() => undefined);
      return ctx.error(errors.invalidRequest("Another chunk at this offset arrived first; query the upload and resume.", "X-Goog-Upload-Offset"));
    }
    return status("active", { "x-goog-upload-size-received": String(moved.receivedBytes) });
  }

  // The last chunk: the waiting chunks then this one, hashed on the way into the file.
  const fileKey = storageKeyOf(session.fileId);
  const hash = createHash("sha256");
  async function* whole(): AsyncGenerator<Buffer> {
    for (const k of session!.partKeys) {
      const part = await storage.read(k);
      if (!part) throw new Error(`upload chunk ${k} is missing`);
      for await (const c of part) yield Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array);
    }
    yield* counted(chunk, room, seen);
  }
  async function* hashed(src: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const c of src) {
      hash.update(c);
      yield c;
    }
  }
  let size: number;
  try {
    ({ size } = await storage.put(fileKey, hashed(whole()), "application/octet-stream"));
  } catch (err) {
    await storage.delete(fileKey).catch(() => undefined);
    if (err instanceof TooLarge) return ctx.error(tooMuch());
    throw err;
  }
  const refuse = async (e: ApiError) => {
    await storage.delete(fileKey).catch(() => undefined);
    return ctx.error(e);
  };
  if (session.declaredBytes !== null && size !== session.declaredBytes)
    return refuse(errors.invalidRequest(`The upload ended at ${size} bytes; its start declared ${session.declaredBytes}.`, "X-Goog-Upload-Header-Content-Length"));
  // The session ends once: a racing finalize finds it gone.
  const now = new Date();
  const row = await db.transaction(async (tx) => {
    const [ended] = await tx
      .delete(fileUploads)
      .where(and(eq(fileUploads.id, session.id), eq(fileUploads.receivedBytes, offset)))
      .returning({ id: fileUploads.id });
    if (!ended) return null;
    const [f] = await tx
      .insert(files)
      .values({
        id: session.fileId,
        accountId: session.accountId,
        keyId: session.keyId,
        userId: session.userId,
        filename: session.displayName ?? "file",
        purpose: "user_data",
        bytes: size,
        storageKey: fileKey,
        mimeType: session.mimeType,
        sha256: hash.digest("hex"),
        createdAt: now,
        expiresAt: new Date(now.getTime() + GEMINI_FILE_MS),
      })
      .returning();
    return f!;
  });
  if (!row) return refuse(errors.invalidRequest("This upload was finalized or moved on by another request.", "X-Goog-Upload-Offset"));
  for (const k of session.partKeys) await storage.delete(k).catch(() => undefined);
  return json(200, { file: renderGeminiFile(row) }, { "x-goog-upload-status": "final" });
}

const handler = (f: (ctx: RouteContext) => Promise<GatewayResponse>) => ({ ...GOOGLE, handler: f });

/** Both versions: @google/genai 3.x calls `v1` (whose `/v1/files` is in routes.ts), older clients `v1beta`. */
export const geminiFileRoutes: RouteDef[] = [
  { method: "POST", path: "/upload/v1beta/files", ...handler(upload) },
  { method: "POST", path: "/upload/v1/files", ...handler(upload) },
  { method: "GET", path: "/v1beta/files", ...handler(listGemini) },
  { method: "GET", path: "/v1beta/files/{id}", ...handler(getGemini) },
  { method: "DELETE", path: "/v1beta/files/{id}", ...handler(deleteGemini) },
];
