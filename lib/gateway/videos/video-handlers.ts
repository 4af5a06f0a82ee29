/**
 * The read and delete routes of video tasks. Every lookup is by task id AND what the caller may
 * see (its account; for a member, their own keys' tasks: lib/keys/visibility.ts): another
 * account's or member's task id is 404, exactly like an unknown one, on every route.
 */
import { and, desc, asc, eq, sql } from "drizzle-orm";
import { getDb, type DB } from "../../../db/client";
import { tasks } from "../../../db/schema";
import { env } from "../../env";
import { errors, type ApiError } from "../errors";
import type { Result } from "../../result";
import { header, json, type GatewayResponse } from "../http";
import type { RouteContext } from "../types";
import { getMediaStorage } from "../../storage/get-media-storage";
import { verifyMediaUrl } from "../../tasks/media-url";
import { deleteTaskMedia } from "../../tasks/retention";
import { serveStoredMedia } from "./serve-media";
import { renderTask, renderVideo, type TaskRow } from "../../tasks/task-render";
import { visibleTo, type Viewer } from "../../keys/visibility";

const TASK_ID = /^task_[A-Za-z0-9]{1,64}$/;
const notFound = (id: string): ApiError => errors.notFound(`No task with id "${id.slice(0, 100)}".`);

async function visibleTask(db: DB, id: string, who: Viewer): Promise<TaskRow | null> {
  const [t] = await db.select().from(tasks).where(and(eq(tasks.id, id), visibleTo(who, tasks)));
  return t ?? null;
}

/** The task of the path's `{id}` for this caller, or the 404 to answer. */
async function ownTask(ctx: RouteContext): Promise<Result<TaskRow, ApiError>> {
  const id = ctx.params.id ?? "";
  if (!TASK_ID.test(id)) return { ok: false, error: notFound(id) };
  const t = await visibleTask(await getDb(), id, ctx.principal);
  // The spec's `model` query parameter must name the task's model when given.
  const model = ctx.req.url.searchParams.get("model");
  if (!t || (model !== null && model !== t.model)) return { ok: false, error: notFound(id) };
  return { ok: true, value: t };
}

export async function handleGetVideo(ctx: RouteContext): Promise<GatewayResponse> {
  const r = await ownTask(ctx);
  return r.ok ? json(200, renderVideo(r.value)) : ctx.error(r.error);
}

export async function handleGetTask(ctx: RouteContext): Promise<GatewayResponse> {
  const r = await ownTask(ctx);
  return r.ok ? json(200, renderTask(r.value, { publicBaseUrl: env().publicBaseUrl })) : ctx.error(r.error);
}

export async function handleListVideos(ctx: RouteContext): Promise<GatewayResponse> {
  const q = ctx.req.url.searchParams;
  const limitText = q.get("limit");
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return ctx.error(errors.invalidRequest("`limit` must be an integer from 1 to 100.", "limit"));
  const order = q.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") return ctx.error(errors.invalidRequest("`order` must be asc or desc.", "order"));
  const db = await getDb();
  const conds = [visibleTo(ctx.principal, tasks)];
  const after = q.get("after");
  if (after) {
    const cursor = TASK_ID.test(after) ? await visibleTask(db, after, ctx.principal) : null;
    if (!cursor) return ctx.error(errors.invalidRequest("`after` must be the id of one of your videos.", "after"));
    const at = cursor.createdAt.toISOString();
    conds.push(
      order === "desc"
        ? sql`(${tasks.createdAt}, ${tasks.id}) < (${at}::timestamptz, ${cursor.id})`
        : sql`(${tasks.createdAt}, ${tasks.id}) > (${at}::timestamptz, ${cursor.id})`,
    );
  }
  const dir = order === "desc" ? desc : asc;
  const rows = await db
    .select()
    .from(tasks)
    .where(and(...conds))
    .orderBy(dir(tasks.createdAt), dir(tasks.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return json(200, {
    object: "list",
    data: page.map(renderVideo),
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
    has_more: rows.length > limit,
  });
}

export async function handleDeleteVideo(ctx: RouteContext): Promise<GatewayResponse> {
  const r = await ownTask(ctx);
  if (!r.ok) return ctx.error(r.error);
  const t = r.value;
  if (t.status === "queued" || t.status === "in_progress") {
    return ctx.error(errors.taskNotReady("Only a completed or failed video can be deleted; this one is still running."));
  }
  await deleteTaskMedia(await getDb(), getMediaStorage(), t.id, t.mediaKeys ?? []);
  return json(200, { id: t.id, object: "video.deleted", deleted: true });
}

/** Why a task's media cannot be served, or null when it can. */
function mediaUnavailable(t: TaskRow, now = new Date()): ApiError | null {
  if (t.status === "failed") return errors.taskNotReady("This task failed; there is no video to download.");
  if (t.status !== "completed") return errors.taskNotReady(`The video is not ready yet (status ${t.status}); poll until it is completed.`);
  if (t.mediaDeletedAt || (t.expiresAt && t.expiresAt <= now) || !t.mediaKeys?.length) return errors.mediaExpired();
  return null;
}

export async function handleVideoContent(ctx: RouteContext): Promise<GatewayResponse> {
  const r = await ownTask(ctx);
  if (!r.ok) return ctx.error(r.error);
  const t = r.value;
  const variant = ctx.req.url.searchParams.get("variant");
  if (variant !== null && variant !== "video") return ctx.error(errors.invalidRequest("Only `variant=video` is available.", "variant"));
  const why = mediaUnavailable(t);
  if (why) return ctx.error(why);
  return serveStoredMedia(getMediaStorage(), t.mediaKeys![0]!, {
    range: header(ctx.req, "range"),
    filename: `${t.id}.mp4`,
    missing: errors.mediaExpired(),
  });
}

/** `GET /v1/media/{id}/{file}?expires&signature`: the signed result URL, no API key. */
export async function handleSignedMedia(ctx: RouteContext): Promise<GatewayResponse> {
  const id = ctx.params.id ?? "";
  const q = ctx.req.url.searchParams;
  const check = verifyMediaUrl(id, ctx.params.file ?? "", q.get("expires"), q.get("signature"));
  if (!check.ok) return ctx.error(check.error === "expired" ? errors.mediaExpired() : errors.notFound("Unknown or invalid media link."));
  const [t] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
  if (!t) return ctx.error(errors.notFound("Unknown or invalid media link."));
  const why = mediaUnavailable(t);
  if (why) return ctx.error(why.status === 410 ? why : errors.notFound("Unknown or invalid media link."));
  const key = t.mediaKeys![check.value];
  if (!key) return ctx.error(errors.notFound("Unknown or invalid media link."));
  return serveStoredMedia(getMediaStorage(), key, { range: header(ctx.req, "range"), filename: `${t.id}.mp4`, missing: errors.mediaExpired() });
}
