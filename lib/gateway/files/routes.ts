/**
 * `/v1/files` in OpenAI's shape: upload (multipart, streamed to media storage), list, retrieve,
 * content, delete. Another organisation's id (or another member's, when confined) is a 404.
 * The same routes speak Anthropic's Files API to an Anthropic client (it sends
 * `anthropic-version`, its key in `x-api-key`) and Google's to a Google one (`x-goog-api-key`
 * or `?key=`: gemini.ts): each its own metadata, errors and cursor — a bad key's 401 too.
 */
import { getDb } from "../../../db/client";
import { getMediaStorage } from "../../storage/get-media-storage";
import { isAnthropicRequest, isGoogleRequest } from "../auth";
import { errors, type ApiError, type ErrorStyle } from "../errors";
import { header, json, type GatewayRequest, type GatewayResponse } from "../http";
import type { RouteContext, RouteDef } from "../types";
import { deleteGemini, geminiFileRoutes, getGemini, listGemini } from "./gemini";
import { counted, fileNotFound, maxBytes, TooLarge, tooLarge } from "./limits";
import { boundaryOf, fieldText, multipartParts, MultipartError } from "./multipart";
import { deleteFile, fileContent, getFile, listFiles, newFileId, renderFile, storageKeyOf, type FileRow } from "./store";
import { files } from "../../../db/schema";
import type { Result } from "../../result";

export { fileNotFound };

/** What a client may upload a file for (OpenAI's purposes); `batch_output` is the gateway's own. */
export const UPLOAD_PURPOSES = ["batch", "assistants", "fine-tune", "vision", "user_data", "evals"] as const;
/** A batch input file lives 30 days unless the upload says otherwise (as OpenAI does). */
const BATCH_FILE_DAYS = 30;

/** Whose error shape a `/v1/files` request gets: Google's, Anthropic's or OpenAI's. */
const callerStyle = (req: GatewayRequest): ErrorStyle => (isGoogleRequest(req) ? "gemini" : isAnthropicRequest(req) ? "anthropic" : "openai");
const isAnthropicCaller = (ctx: RouteContext) => callerStyle(ctx.req) === "anthropic";
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Anthropic's FileMetadata. */
function renderAnthropicFile(f: FileRow): Record<string, unknown> {
  return { id: f.id, type: "file", filename: f.filename, mime_type: f.mimeType ?? "application/octet-stream", size_bytes: f.bytes, created_at: iso(f.createdAt), expires_at: iso(f.expiresAt), downloadable: true };
}
const render = (ctx: RouteContext, f: FileRow) => (isAnthropicCaller(ctx) ? renderAnthropicFile(f) : renderFile(f));

async function upload(ctx: RouteContext): Promise<GatewayResponse> {
  const boundary = boundaryOf(header(ctx.req, "content-type"));
  if (!boundary) return ctx.error(errors.invalidRequest("Upload the file as multipart/form-data with the fields 'file' and 'purpose'."));
  const declared = Number(header(ctx.req, "content-length"));
  // The form's other fields and boundaries fit well within a MiB over the file itself.
  if (Number.isFinite(declared) && declared > maxBytes() + 1024 * 1024) return ctx.error(tooLarge());
  if (!ctx.req.body) return ctx.error(errors.invalidRequest("'file' is required.", "file"));
  const id = newFileId();
  const key = storageKeyOf(id);
  const fields: Record<string, string> = {};
  let file: { filename: string; bytes: number; mimeType: string | null } | null = null;
  const storage = getMediaStorage();
  try {
    for await (const part of multipartParts(ctx.req.body, boundary)) {
      if (part.name === "file" && part.filename !== null && !file) {
        const seen = { bytes: 0 };
        await storage.put(key, counted(part.body, maxBytes(), seen), "application/octet-stream");
        file = { filename: part.filename.slice(0, 255) || "file", bytes: seen.bytes, mimeType: part.contentType?.slice(0, 255) ?? null };
      } else fields[part.name] = await fieldText(part);
    }
  } catch (err) {
    await storage.delete(key).catch(() => undefined);
    if (err instanceof TooLarge) return ctx.error(tooLarge());
    if (err instanceof MultipartError) return ctx.error(errors.invalidRequest(err.message));
    throw err;
  }
  const refuse = async (e: ApiError) => {
    await storage.delete(key).catch(() => undefined);
    return ctx.error(e);
  };
  if (!file) return refuse(errors.invalidRequest("'file' is required (a multipart file part).", "file"));
  // Anthropic's upload has no purpose: its files are for use in messages.
  const purpose = fields.purpose ?? (isAnthropicCaller(ctx) ? "user_data" : undefined);
  if (!purpose) return refuse(errors.invalidRequest("'purpose' is required.", "purpose"));
  if (!(UPLOAD_PURPOSES as readonly string[]).includes(purpose)) return refuse(errors.invalidRequest(`'purpose' must be one of ${UPLOAD_PURPOSES.join(", ")}; got '${purpose.slice(0, 50)}'.`, "purpose"));
  const expiry = expiresAt(fields, purpose);
  if (!expiry.ok) return refuse(expiry.error);
  const p = ctx.principal;
  const [row] = await (await getDb())
    .insert(files)
    .values({ id, accountId: p.accountId, keyId: p.keyId, userId: p.userId, filename: file.filename, purpose, bytes: file.bytes, storageKey: key, mimeType: file.mimeType, expiresAt: expiry.value })
    .returning();
  return json(200, render(ctx, row!));
}

/** `expires_after[anchor]=created_at` and `expires_after[seconds]` (one hour to 30 days), or the purpose's default. */
function expiresAt(fields: Record<string, string>, purpose: string): Result<Date | null, ApiError> {
  const anchor = fields["expires_after[anchor]"];
  const seconds = fields["expires_after[seconds]"];
  if (anchor === undefined && seconds === undefined) return { ok: true, value: purpose === "batch" ? new Date(Date.now() + BATCH_FILE_DAYS * 86_400_000) : null };
  if (anchor !== "created_at") return { ok: false, error: errors.invalidRequest("'expires_after[anchor]' must be 'created_at'.", "expires_after.anchor") };
  const s = Number(seconds);
  if (!Number.isInteger(s) || s < 3600 || s > 2_592_000) return { ok: false, error: errors.invalidRequest("'expires_after[seconds]' must be a whole number of seconds from 3600 (one hour) to 2592000 (30 days).", "expires_after.seconds") };
  return { ok: true, value: new Date(Date.now() + s * 1000) };
}

/** `limit` (1–10000), `order` (asc|desc), `after`: the shared list query of files and batches. */
export function pageQuery(ctx: RouteContext, maxLimit: number, dflt: number): Result<{ limit: number; order: "asc" | "desc"; after?: string }, ApiError> {
  const q = ctx.req.url.searchParams;
  const limit = q.get("limit") === null ? dflt : Number(q.get("limit"));
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) return { ok: false, error: errors.invalidRequest(`'limit' must be a whole number from 1 to ${maxLimit}.`, "limit") };
  const order = q.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") return { ok: false, error: errors.invalidRequest("'order' must be 'asc' or 'desc'.", "order") };
  return { ok: true, value: { limit, order, after: q.get("after") ?? undefined } };
}

async function list(ctx: RouteContext): Promise<GatewayResponse> {
  if (isGoogleRequest(ctx.req)) return listGemini(ctx);
  if (isAnthropicCaller(ctx)) return listAnthropic(ctx);
  const page = pageQuery(ctx, 10_000, 10_000);
  if (!page.ok) return ctx.error(page.error);
  const purpose = ctx.req.url.searchParams.get("purpose") ?? undefined;
  const { rows, hasMore } = await listFiles(await getDb(), ctx.principal, { ...page.value, purpose });
  const data = rows.map(renderFile);
  return json(200, { object: "list", data, first_id: rows[0]?.id ?? null, last_id: rows.at(-1)?.id ?? null, has_more: hasMore });
}

/** Anthropic's list: `limit` (1–1000, default 20), newest first, the cursor in `page` (or `after_id`), `next_page` when there is more. */
async function listAnthropic(ctx: RouteContext): Promise<GatewayResponse> {
  const q = ctx.req.url.searchParams;
  const limit = q.get("limit") === null ? 20 : Number(q.get("limit"));
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return ctx.error(errors.invalidRequest("limit: must be a whole number from 1 to 1000.", "limit"));
  const after = q.get("page") ?? q.get("after_id") ?? undefined;
  const { rows, hasMore } = await listFiles(await getDb(), ctx.principal, { limit, order: "desc", after });
  const last = rows.at(-1)?.id ?? null;
  return json(200, { data: rows.map(renderAnthropicFile), first_id: rows[0]?.id ?? null, last_id: last, has_more: hasMore, next_page: hasMore ? last : null });
}

async function retrieve(ctx: RouteContext): Promise<GatewayResponse> {
  if (isGoogleRequest(ctx.req)) return getGemini(ctx);
  const f = await getFile(await getDb(), ctx.principal, ctx.params.id!);
  return f ? json(200, render(ctx, f)) : ctx.error(fileNotFound(ctx.params.id!));
}

async function content(ctx: RouteContext): Promise<GatewayResponse> {
  const f = await getFile(await getDb(), ctx.principal, ctx.params.id!);
  const body = f && (await fileContent(f));
  if (!f || !body) return ctx.error(fileNotFound(ctx.params.id!));
  return {
    status: 200,
    headers: { "content-type": (isAnthropicCaller(ctx) && f.mimeType) || "application/octet-stream", "content-length": String(f.bytes), "content-disposition": `attachment; filename="${f.filename.replace(/["\\\r\n]/g, "_")}"` },
    body,
  };
}

async function remove(ctx: RouteContext): Promise<GatewayResponse> {
  if (isGoogleRequest(ctx.req)) return deleteGemini(ctx);
  const ok = await deleteFile(await getDb(), ctx.principal, ctx.params.id!);
  if (!ok) return ctx.error(fileNotFound(ctx.params.id!));
  return json(200, isAnthropicCaller(ctx) ? { id: ctx.params.id, type: "file_deleted" } : { id: ctx.params.id, object: "file", deleted: true });
}

/** Anthropic's clients authenticate with `x-api-key`, Google's with `x-goog-api-key` or `?key=` (@google/genai 3.x calls `/v1/files`). */
const both = { transports: { xApiKey: true, googApiKey: true, queryKey: true }, errorStyle: callerStyle };

export const fileRoutes: RouteDef[] = [
  { method: "POST", path: "/v1/files", ...both, handler: upload },
  { method: "GET", path: "/v1/files", ...both, handler: list },
  { method: "GET", path: "/v1/files/{id}", ...both, handler: retrieve },
  { method: "DELETE", path: "/v1/files/{id}", ...both, handler: remove },
  { method: "GET", path: "/v1/files/{id}/content", ...both, handler: content },
  ...geminiFileRoutes,
];
